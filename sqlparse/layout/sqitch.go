package layout

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutSqitch is sqitch's sqitch.plan with deploy/{change}.sql.
const LayoutSqitch Layout = "sqitch"

var sqitch = &Def{
	Name:   LayoutSqitch,
	Tool:   "sqitch",
	Files:  "`sqitch.plan` + `deploy/{change}.sql`",
	UpPart: "`deploy/`",
	Order:  "plan order",
	Signature: func(dir string, sc dirScan) bool {
		return sc.others["sqitch.plan"] && hasName(sc.subdirs, "deploy")
	},
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		return listSqitch(t.dir, t.display, t.sc.root)
	},

	// sqitch deploys with psql, which drops a leading UTF-8 byte order mark.
	DropsBOM: true,
}

// listSqitch reads sqitch.plan and takes deploy/{change}.sql in plan order.
// A reworked change (named again after a tag) was deployed from
// deploy/{change}@{tag}.sql before the rework.
func listSqitch(dir, display, root string) ([]File, []SkippedFile, []scan.Diagnostic) {
	planPath := filepath.Join(dir, "sqitch.plan")
	data, err := readInTree(root, planPath)
	if err != nil {
		return nil, nil, []scan.Diagnostic{pathError(filepath.Join(display, "sqitch.plan"), err)}
	}
	type change struct {
		name string
		line int
		tag  string // the first tag after this change, for reworks
	}
	var changes []*change
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "%") {
			continue
		}
		fields := strings.Fields(line)
		if strings.HasPrefix(line, "@") {
			tag := strings.TrimPrefix(fields[0], "@")
			for i := len(changes) - 1; i >= 0 && changes[i].tag == ""; i-- {
				changes[i].tag = tag
			}
			continue
		}
		changes = append(changes, &change{name: fields[0], line: lineNo})
	}
	seen := map[string]int{}
	for _, c := range changes {
		seen[c.name]++
	}
	var files []File
	var diags []scan.Diagnostic
	used := map[string]bool{}
	left := map[string]int{}
	for _, c := range changes {
		left[c.name]++
		rel := filepath.Join("deploy", c.name+".sql")
		if left[c.name] < seen[c.name] && c.tag != "" {
			rel = filepath.Join("deploy", c.name+"@"+c.tag+".sql")
		}
		if ok, err := fileAt(filepath.Join(dir, rel)); err != nil {
			diags = append(diags, pathError(filepath.Join(display, rel), err))
			continue
		} else if !ok {
			diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
				"%s:%d: change %q has no deploy script %s", filepath.Join(display, "sqitch.plan"), c.line, c.name, filepath.Join(display, rel))})
			continue
		}
		f := newFile(display, rel, LayoutSqitch)
		f.Name = c.name
		files = append(files, f)
		used[rel] = true
	}
	var skipped []SkippedFile
	for _, sub := range []struct{ dir, reason string }{
		{"deploy", "not in sqitch.plan, so sqitch does not deploy it"},
		{"revert", "a revert script"},
		{"verify", "a verify script"},
	} {
		entries, err := os.ReadDir(filepath.Join(dir, sub.dir))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				diags = append(diags, pathError(filepath.Join(display, sub.dir), err))
			}
			continue
		}
		for _, e := range entries {
			rel := filepath.Join(sub.dir, e.Name())
			if strings.HasSuffix(e.Name(), ".sql") && !used[rel] {
				skipped = append(skipped, skip(display, rel, sub.reason))
			}
		}
	}
	return files, skipped, diags
}
