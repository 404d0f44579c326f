package layout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// File is one migration file chosen for replay.
type File struct {
	// Path is the display path used in positions: the path the user gave
	// joined with the file's path below it (relative stays relative); stdin
	// is shown as "<stdin>".
	Path string
	// Version is the version the tool orders by ("" for dump and plain).
	Version string
	Name    string
	Layout  Layout

	disk  string // path to read; empty when data holds the content
	data  []byte // content read from stdin, or by discovery (then a cache: disk is set too)
	stdin bool
}

// stdinPath is how input read from stdin is named in positions.
const stdinPath = "<stdin>"

// Tree is one migration tree (or a single file) in replay order.
type Tree struct {
	Root   string
	Layout Layout
	Files  []File
	// Skipped are the files of the tree that its layout does not use: down,
	// undo and revert scripts, other databases' migrations, names the tool
	// does not recognise. Load reports each one as a note.
	Skipped []SkippedFile

	// DownNamed is set for a down migration named on its own, which is
	// never replayed (Load decides between a note and an error).
	DownNamed bool
}

// SkippedFile is a file of a tree that its layout leaves out, and why.
type SkippedFile struct {
	Path   string
	Reason string
}

// DiscoverOptions tunes Discover.
type DiscoverOptions struct {
	Layout Layout    // "" detects the layout of each tree
	Stdin  io.Reader // read for the path "-"
}

// maxTreeDepth is how far below a given directory a tree may sit
// (payments/migrations/*.up.sql).
const maxTreeDepth = 2

// Discover finds the migration trees named by paths. Each path is a
// directory, a file, or "-" for stdin. A path that cannot be used gives an
// Error diagnostic; the other paths are still returned.
func Discover(paths []string, opts DiscoverOptions) ([]Tree, []scan.Diagnostic) {
	var trees []Tree
	var diags []scan.Diagnostic
	for _, p := range paths {
		t, d := DiscoverPath(p, opts)
		trees = append(trees, t...)
		diags = append(diags, d...)
	}
	return trees, diags
}

// DiscoverPath finds the trees of one path argument.
func DiscoverPath(p string, opts DiscoverOptions) ([]Tree, []scan.Diagnostic) {
	if p == "-" {
		return stdinTree(opts)
	}
	info, err := os.Stat(p)
	if err != nil {
		return nil, []scan.Diagnostic{pathError(p, err)}
	}
	if !info.IsDir() {
		return singleFileTree(p, opts.Layout)
	}
	// The tree is what the path holds: a link that leads out of it is not
	// followed. The path itself may be a link; where it leads is the tree.
	root, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, []scan.Diagnostic{pathError(p, err)}
	}
	visited := map[string]bool{}
	trees, diags := findTrees(p, p, opts.Layout, 0, visited, root)
	if len(trees) == 0 && len(diags) == 0 {
		diags = append(diags, scan.Diagnostic{Level: scan.Error,
			Message: fmt.Sprintf("%s: no SQL migrations found (looked %d directories down)%s; pass a migration directory or a .sql file", p, maxTreeDepth, foundInstead(p))})
	}
	return trees, diags
}

// pathError turns a failed stat or read into a diagnostic naming the path.
func pathError(p string, err error) scan.Diagnostic {
	msg := fmt.Sprintf("%s: cannot read: %v", p, unwrapPathError(err))
	if errors.Is(err, errEmpty) {
		msg = fmt.Sprintf("%s: %v", p, err)
	} else if errors.Is(err, fs.ErrNotExist) {
		msg = fmt.Sprintf("%s: no such file or directory", p)
	}
	return scan.Diagnostic{Level: scan.Error, Message: msg}
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// stdinTree reads stdin as one file and detects its layout from content.
func stdinTree(opts DiscoverOptions) ([]Tree, []scan.Diagnostic) {
	if opts.Stdin == nil {
		return nil, []scan.Diagnostic{{Level: scan.Error, Message: "-: no standard input to read"}}
	}
	data, err := readSQL(opts.Stdin)
	if err != nil {
		return nil, []scan.Diagnostic{readDiagnostic(stdinPath, err)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, []scan.Diagnostic{pathError(stdinPath, errEmpty)}
	}
	layout := opts.Layout
	if layout == "" {
		layout = contentLayout(data)
		if layout == "" {
			layout = LayoutPlain
		}
	}
	f := File{Path: stdinPath, Layout: layout, data: data, stdin: true}
	return []Tree{{Root: stdinPath, Layout: layout, Files: []File{f}}}, nil
}

// singleFileTree makes a one-file tree of a file given by name. A down
// migration makes a tree with no file to replay.
func singleFileTree(p string, forced Layout) ([]Tree, []scan.Diagnostic) {
	if kind := downKind(filepath.Base(p)); kind != "" {
		layout := forced
		if layout == "" {
			layout = LayoutPlain
		}
		return []Tree{{Root: p, Layout: layout, Skipped: []SkippedFile{{Path: p, Reason: kind}}, DownNamed: true}}, nil
	}
	data, err := readSQLFile(p)
	if err != nil {
		return nil, []scan.Diagnostic{readDiagnostic(p, err)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, []scan.Diagnostic{pathError(p, errEmpty)}
	}
	layout := forced
	if layout == "" {
		layout = fileLayout(p, data)
	}
	base := filepath.Base(p)
	version, name := splitVersion(base)
	if m := flywayVersioned.FindStringSubmatch(base); m != nil {
		version, name = m[1], m[2]
	}
	if layout == LayoutDump || layout == LayoutPlain {
		version = ""
	}
	// The content detection read is kept for the load, which would
	// otherwise read the file a second time (ReadUp; the loader drops it
	// with Release as it reads).
	f := File{Path: p, Version: version, Name: name, Layout: layout, disk: p, data: data}
	return []Tree{{Root: p, Layout: layout, Files: []File{f}}}, nil
}

// findTrees looks for a tree at dir, then one and two directories down.
// visited holds resolved directories so that symlink loops end; root is the
// resolved path given, which no link is followed out of.
func findTrees(dir, display string, forced Layout, depth int, visited map[string]bool, root string) ([]Tree, []scan.Diagnostic) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, []scan.Diagnostic{pathError(display, err)}
	}
	if visited[real] {
		if isLoop(dir, real) {
			return nil, []scan.Diagnostic{{Level: scan.Error, Message: fmt.Sprintf(
				"%s: symbolic link loop (leads back to %s, which is already being read); not followed", display, real)}}
		}
		return nil, nil // a second link to a tree already read
	}
	visited[real] = true
	sc, err := scanDir(dir, root)
	if err != nil {
		return nil, []scan.Diagnostic{pathError(display, err)}
	}
	notes := outsideNotes(display, sc.outside)
	// A Hasura project's migrations are its migrations folder, whatever
	// else it holds (hasura.go); that folder counts as the project's own
	// level, so that migrations/<database>/ is within reach.
	if p, ok := hasuraProjectAt(dir, display, sc); ok && forced == "" {
		trees, diags := findTrees(filepath.Join(dir, p.migrations), filepath.Join(display, p.migrations), forced, depth, visited, root)
		return trees, append(notes, diags...)
	}
	layout, why, byFiles := forced, []scan.Diagnostic(nil), false
	if layout == "" {
		layout, why, byFiles = detectDirHow(dir, display, sc)
	}
	if layout != "" {
		tree, diags := listTree(dir, display, layout, sc)
		if len(tree.Files) > 0 || len(tree.Skipped) > 0 || len(diags) > 0 {
			// A few loose files beside folders that hold more migrations
			// are not the tree: the folders are (docs/layouts.md).
			// A folder of queries (sqlc's) holds no schema: not a tree.
			sub, n := "", 0
			if byFiles && layout == LayoutPlain && len(diags) == 0 && len(tree.Files) > 0 && !anyDDL(tree.Files) {
				sub = "-"
			} else if byFiles && depth < maxTreeDepth && layout != LayoutDump && !sc.others["structure.sql"] && !sc.others["schema.rb"] {
				// A schema dump (structure.sql, pg_dump's output) is the
				// whole schema, whatever the folders beside it hold.
				sub, n = biggerBelow(dir, sc, depth, len(tree.Files))
			}
			if sub == "" {
				return []Tree{tree}, append(append(notes, why...), diags...)
			}
			if sub != "-" {
				notes = append(notes, scan.Diagnostic{Level: scan.Note, Message: fmt.Sprintf(
					"%s: its own %s not read as a tree: %s below it holds %d; name %s to read %s",
					display, countFiles(len(tree.Files), ".sql file", ".sql files"), filepath.Join(display, sub), n,
					filesOrDir(tree.Files), itOrThem(len(tree.Files)))})
			}
		}
	}
	if depth >= maxTreeDepth {
		return nil, notes
	}
	var trees []Tree
	diags := notes
	// Version folders named by number (1/, 2/, 10/) are applied in numeric
	// order, which is not the order of their names.
	subdirs := slices.Clone(sc.subdirs)
	slices.SortStableFunc(subdirs, naturalCompare)
	for _, sub := range subdirs {
		// Test fixtures, examples and templates below a given path are
		// not the project's schema; Rails' db/views (scenic) and
		// db/functions (fx) are definitions its schema refers to.
		if ignoredDir(sub) || FixtureDir(sub) || RailsDefinitionDir(sc, sub) {
			continue
		}
		t, d := findTrees(filepath.Join(dir, sub), filepath.Join(display, sub), forced, depth+1, visited, root)
		trees = append(trees, t...)
		diags = append(diags, d...)
	}
	return trees, diags
}

// insideTree reports whether path, its links resolved, lies in root (a
// resolved directory), and where it leads. A path that does not resolve (a
// dangling link, a file that is not there) counts as inside: reading it
// then reports what is wrong with it.
func insideTree(root, path string) (target string, inside bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil || root == "" {
		return real, true
	}
	rel, err := filepath.Rel(root, real)
	return real, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// OutsideTree reports whether path, a file or folder found under root (a
// path lint was given), is a link that leads out of root, and where it
// leads: lint does not follow it (the framework schema files use this too).
func OutsideTree(root, path string) (target string, outside bool) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	target, inside := insideTree(real, path)
	return target, !inside
}

// NotFollowed is the note for a link lint does not follow.
func NotFollowed(path, target string) string {
	return fmt.Sprintf("%s: %s (to %s)", path, errOutside, target)
}

// errOutside is the reason a link out of the tree is not followed.
const errOutside = "not followed: points outside the tree"

// outsideNotes name the links of a directory that lead out of the tree.
func outsideNotes(display string, links []outsideLink) []scan.Diagnostic {
	var out []scan.Diagnostic
	for _, l := range links {
		out = append(out, scan.Diagnostic{Level: scan.Note, Message: NotFollowed(filepath.Join(display, l.name), l.target)})
	}
	return out
}

// outsideError is a file the tree names (a plan, a manifest) that is a
// link leading out of the tree: it is not read.
type outsideError struct{ target string }

func (e *outsideError) Error() string { return fmt.Sprintf("%s (to %s)", errOutside, e.target) }

// readFile reads a file of the tree the scan belongs to (readInTree).
func (sc dirScan) readFile(path string) ([]byte, error) { return readInTree(sc.root, path) }

// readInTree reads a file of the tree whose resolved top is root, as
// readSQLFile does, unless it is a link that leads out of the tree.
func readInTree(root, path string) ([]byte, error) {
	if target, inside := insideTree(root, path); !inside {
		return nil, &outsideError{target}
	}
	return readSQLFile(path)
}

// isLoop reports whether dir, which resolves to real, leads back to one of
// its own parents: following it again would never end.
func isLoop(dir, real string) bool {
	parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return false
	}
	return parent == real || strings.HasPrefix(parent, real+string(filepath.Separator))
}

// ignoredDir reports directories that never hold a project's migrations.
func ignoredDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor"
}

// dirScan is what one directory holds, sorted by name. Links that lead
// out of the tree are left out of it, and listed apart.
type dirScan struct {
	sqlFiles []string
	// otherDialect are name.sql.<dialect> files for another database
	// (name.sql.sqlite): never replayed.
	otherDialect []string
	subdirs      []string
	others       map[string]bool // every entry name
	// root is the resolved top of the tree; outside are the entries that
	// are links leading out of it, never followed.
	root    string
	outside []outsideLink
}

// outsideLink is a link that leads out of the tree, and where it leads.
type outsideLink struct{ name, target string }

// scanDir lists dir, a directory of the tree whose resolved top is root.
func scanDir(dir, root string) (dirScan, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return dirScan{}, err
	}
	sc := dirScan{others: map[string]bool{}, root: root}
	for _, e := range entries {
		name := e.Name()
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if target, inside := insideTree(root, filepath.Join(dir, name)); !inside {
				sc.outside = append(sc.outside, outsideLink{name, target})
				continue
			}
			info, err := os.Stat(filepath.Join(dir, name))
			// A dangling link named like a migration is kept so that
			// reading it reports the broken migration.
			isDir = err == nil && info.IsDir()
		}
		sc.others[name] = true
		switch {
		case isDir:
			sc.subdirs = append(sc.subdirs, name)
		default:
			// name.sql, and name.sql.postgres and the like, which are
			// PostgreSQL's; another database's file is never replayed.
			if d, ok := SQLDialect(name); ok {
				if PostgresDialect(d) {
					sc.sqlFiles = append(sc.sqlFiles, name)
				} else {
					sc.otherDialect = append(sc.otherDialect, name)
				}
			}
		}
	}
	return sc, nil
}

// Detect is the layout detection finds for the directory dir, or "" when
// dir is not a directory or holds no migrations of its own.
func Detect(dir string) Layout {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return ""
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ""
	}
	sc, err := scanDir(dir, root)
	if err != nil {
		return ""
	}
	l, _ := detectDir(dir, dir, sc)
	return l
}

// detectDir guesses the layout of a directory, or "" when it holds no
// migrations of its own. A note says why when the names alone would have
// suggested another layout.
func detectDir(dir, display string, sc dirScan) (Layout, []scan.Diagnostic) {
	l, why, _ := detectDirHow(dir, display, sc)
	return l, why
}

// detectDirHow is detectDir, and says whether the layout came from the
// directory's own .sql files alone (no signature, no version folders).
func detectDirHow(dir, display string, sc dirScan) (Layout, []scan.Diagnostic, bool) {
	for _, d := range registry {
		if d.Signature != nil && d.Signature(dir, sc) {
			return d.Name, nil, false
		}
	}
	// Folders {version}_{name}/ holding the file of a layout: the layout
	// with the most wins, the registry's order breaking ties.
	best, bestCount := Layout(""), 0
	for _, d := range registry {
		if d.FolderFile == "" {
			continue
		}
		n := 0
		for _, sub := range sc.subdirs {
			if v, _ := splitVersion(sub); v != "" && fileExists(filepath.Join(dir, sub, d.FolderFile)) {
				n++
			}
		}
		if n > bestCount {
			best, bestCount = d.Name, n
		}
	}
	if best != "" {
		return best, nil, false
	}
	if len(sc.sqlFiles) == 0 {
		return "", nil, false
	}
	layout, why := detectSQLFiles(dir, sc.sqlFiles)
	if why == "" {
		return layout, nil, true
	}
	return layout, []scan.Diagnostic{{Level: scan.Note, Message: display + ": " + why}}, true
}

// biggerBelow finds the folder of dir (scanned as sc, depth folders below
// the path given) whose files, as far down as discovery looks, outnumber
// own, the files dir's own tree would replay; "" when none does.
func biggerBelow(dir string, sc dirScan, depth, own int) (string, int) {
	best, bestN := "", own
	for _, sub := range sortedSubdirs(sc) {
		if ignoredDir(sub) || FixtureDir(sub) || RailsDefinitionDir(sc, sub) {
			continue
		}
		if n := countSQLBelow(filepath.Join(dir, sub), sc.root, maxTreeDepth-depth-1); n > bestN {
			best, bestN = sub, n
		}
	}
	return best, bestN
}

// countSQLBelow counts the PostgreSQL .sql files that are not down
// migrations in dir and, levels
// folders further down, below it.
func countSQLBelow(dir, root string, levels int) int {
	sc, err := scanDir(dir, root)
	if err != nil {
		return 0
	}
	n := 0
	for _, f := range sc.sqlFiles {
		if downKind(f) == "" {
			n++
		}
	}
	if levels <= 0 {
		return n
	}
	for _, sub := range sc.subdirs {
		if ignoredDir(sub) || FixtureDir(sub) || RailsDefinitionDir(sc, sub) {
			continue
		}
		n += countSQLBelow(filepath.Join(dir, sub), root, levels-1)
	}
	return n
}

func countFiles(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func itOrThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// filesOrDir names the files of a tree for a note: the file itself when
// there is one, else "the files".
func filesOrDir(files []File) string {
	if len(files) == 1 {
		return files[0].Path
	}
	return "the files"
}

// detectSQLFiles guesses the layout of a directory of .sql files from their
// names, then from markers in their content (the most common marker wins).
// why is set when the names looked like one layout and the tree is read as
// another.
func detectSQLFiles(dir string, names []string) (layout Layout, why string) {
	migrateNames, flyway := 0, 0
	for _, n := range names {
		lower := strings.ToLower(n)
		if dialectUp.MatchString(lower) {
			return LayoutMultiDialect, ""
		}
		if isUpDownName(lower) {
			migrateNames++
		}
		if isFlywayName(n) {
			flyway++
		}
	}
	// golang-migrate names are taken for golang-migrate only when they are
	// most of the tree: otherwise golang-migrate would leave most files out.
	if migrateNames > 0 && migrateNames >= flyway && 2*migrateNames >= len(names) {
		// golang-migrate refuses two files of one version; a tree that has
		// them is run by a tool that applies every file, so it is read
		// as plain rather than losing all but one of them.
		if a, b, v := sharedUpVersion(names); a != "" {
			return LayoutPlain, fmt.Sprintf("%s and %s share version %s, which golang-migrate refuses; "+
				"the tree is read as plain: every up file in natural name order (--layout golang-migrate makes a shared version an error)", a, b, v)
		}
		return LayoutGolangMigrate, ""
	}
	if flyway > 0 {
		return LayoutFlyway, ""
	}
	votes := map[Layout]int{}
	var lastData []byte
	for _, n := range names {
		data, err := readSQLFile(filepath.Join(dir, n))
		if err != nil {
			continue // reported when the file is read for replay
		}
		lastData = data
		if l := contentLayout(data); l != "" {
			votes[l]++
		}
	}
	best, bestVotes := Layout(""), 0
	for _, d := range registry { // fixed order so ties are stable
		if l := d.Name; l != LayoutDump && votes[l] > bestVotes {
			best, bestVotes = l, votes[l]
		}
	}
	if best != "" {
		return best, ""
	}
	if len(names) == 1 && (votes[LayoutDump] > 0 || len(lastData) >= dumpMinSize || names[0] == "structure.sql") {
		return LayoutDump, ""
	}
	return LayoutPlain, ""
}

// sharedUpVersion finds two .up.sql names that claim one version (and not
// as dialect variants, which multi-dialect takes apart), or returns "".
func sharedUpVersion(names []string) (a, b, version string) {
	seen := map[string]string{}
	for _, n := range names {
		if !strings.HasSuffix(strings.ToLower(n), ".up.sql") {
			continue
		}
		v, _ := splitVersion(n[:len(n)-len(".up.sql")] + ".x")
		if v == "" {
			continue
		}
		key := normalizeDigits(v)
		if first, ok := seen[key]; ok {
			return first, n, v
		}
		seen[key] = n
	}
	return "", "", ""
}

func hasName(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

// fileAt is fileExists for a file a layout lists: err is set when p cannot
// be looked at for a reason other than its absence (a folder the user may
// not read), which is an input error, never a file quietly left out.
func fileAt(p string) (bool, error) {
	info, err := os.Stat(p)
	switch {
	case err == nil:
		return !info.IsDir(), nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return false, nil
	}
	return false, err
}

// splitVersion cuts a leading version off a name: "20190226_add" gives
// ("20190226", "add"); diesel's "2019-02-26-002946_add" gives
// ("2019-02-26-002946", "add"). Separators are allowed inside the version
// when digits follow them; "_" only when another separator follows the
// digits after it (20230101_120000_add), since "_" also ends the version.
func splitVersion(name string) (version, rest string) {
	name = strings.TrimSuffix(name, filepath.Ext(name))
	i := digitsAt(name, 0)
	if i == 0 {
		return "", name
	}
	for i < len(name) {
		c := name[i]
		if c != '-' && c != '.' && c != '_' {
			break
		}
		j := digitsAt(name, i+1)
		if j == i+1 {
			break
		}
		// An underscore joins only a date and a time of day
		// (20230101_120000_name). Elsewhere it ends the version: goose,
		// golang-migrate, dbmate and tern read the first run of digits,
		// so in 20240823204123_0_42_5.sql the "0_42_5" is the name.
		if c == '_' && (i != 8 || j-(i+1) != 6) {
			break
		}
		i = j
	}
	rest = strings.TrimLeft(name[i:], "_-.")
	return name[:i], rest
}

// digitsAt returns the end of the run of ASCII digits starting at i.
func digitsAt(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// LeadingDigits returns the run of ASCII digits that starts s.
func LeadingDigits(s string) string { return s[:digitsAt(s, 0)] }

// sortFiles orders files by cmp (ties by path) and reports files that
// claim the same version; only the first of them is kept.
func sortFiles(files []File, cmp func(a, b File) int) ([]File, []scan.Diagnostic) {
	sort.SliceStable(files, func(i, j int) bool {
		if c := cmp(files[i], files[j]); c != 0 {
			return c < 0
		}
		return files[i].Path < files[j].Path
	})
	var kept []File
	var diags []scan.Diagnostic
	for _, f := range files {
		if n := len(kept); n > 0 && f.Version != "" && kept[n-1].Version != "" && cmp(kept[n-1], f) == 0 {
			diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
				"duplicate migration version %s: %s and %s both claim it; %s is not used, rename one of them",
				f.Version, kept[n-1].Path, f.Path, f.Path)})
			continue
		}
		kept = append(kept, f)
	}
	return kept, diags
}
