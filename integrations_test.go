package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/idemcheck/idemcheck/internal/testkit/gittest"
)

// These tests run each CI integration's own command lines, read out of
// action.yml, .pre-commit-hooks.yaml and the README's GitLab and Docker
// snippets, against a git history like a pull request's: the example
// migration tree on main, and a branch that adds two migrations.

// prMigrations are what the pull request adds: a new table with a hole, and
// a migration that drops the partial index closing an old index's hole.
var prMigrations = map[string]string{
	"db/migrations/000017_create_payout_claims.up.sql": `CREATE TABLE payout_claims (
    id bigserial PRIMARY KEY,
    account_id bigint NOT NULL,
    payout_ref text,
    request_id text NOT NULL
);
CREATE UNIQUE INDEX payout_claims_once ON payout_claims (account_id, payout_ref, request_id);
`,
	"db/migrations/000017_create_payout_claims.down.sql": "DROP TABLE payout_claims;\n",
	"db/migrations/000018_refund_claims_one_index.up.sql": `DROP INDEX refund_claims_claim_no_namespace_key;
`,
	"db/migrations/000018_refund_claims_one_index.down.sql": "-- nothing to undo\n",
}

// prNewFindings are the findings --new-from-rev must report for it, as
// "rule file:line"; the example tree's 11 are old.
var prNewFindings = []string{
	"nullable-key db/migrations/000017_create_payout_claims.up.sql:7",
	"nullable-key db/migrations/000018_refund_claims_one_index.up.sql:1",
	"unique-dropped db/migrations/000018_refund_claims_one_index.up.sql:1",
}

// pullRequest makes the history: main holds the example tree, HEAD is the
// branch with the pull request's migrations committed. It returns the repo
// and the base commit.
func pullRequest(t *testing.T) (*gittest.Repo, string) {
	t.Helper()
	repo := gittest.New(t)
	copyDir(t, filepath.Join(repoRoot(t), "testdata/examples/payments/migrations"), filepath.Join(repo.Dir, "db/migrations"))
	repo.Commit("the example tree")
	base := repo.Head()
	repo.Git("checkout", "-q", "-b", "pr")
	for name, sql := range prMigrations {
		repo.Write(name, sql)
	}
	repo.Commit("payout claims")
	return repo, base
}

// --- GitHub Action ---

type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
	Run   string            `yaml:"run"`
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(readFile(t, path)), into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// actionRun plays a GitHub Actions runner for the composite action: it
// evaluates the expressions the action uses, runs each bash step as GitHub
// does (bash --noprofile --norc -eo pipefail), carries GITHUB_PATH and
// GITHUB_OUTPUT between steps, and records the steps that use other actions
// instead of running them.
type actionRun struct {
	t         *testing.T
	workspace string
	github    map[string]string // github.* context
	inputs    map[string]string
	outputs   map[string]map[string]string // steps.<id>.outputs
	path      []string
	failed    bool
	// log is what happened, one line per step; stepOutput has each run
	// step's output by name.
	log        []string
	stepOutput map[string]shellResult
	// summary is the job's $GITHUB_STEP_SUMMARY, shared by its steps.
	summary string
}

var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// value resolves a context reference such as inputs.paths or
// steps.lint.outputs.exit-code.
func (a *actionRun) value(ref string) string {
	switch {
	case strings.HasPrefix(ref, "inputs."):
		return a.inputs[strings.TrimPrefix(ref, "inputs.")]
	case strings.HasPrefix(ref, "github."):
		v, ok := a.github[strings.TrimPrefix(ref, "github.")]
		if !ok {
			a.t.Fatalf("the action reads %s, which this test does not provide", ref)
		}
		return v
	case strings.HasPrefix(ref, "steps."):
		parts := strings.SplitN(strings.TrimPrefix(ref, "steps."), ".", 3)
		if len(parts) == 3 && parts[1] == "outputs" {
			return a.outputs[parts[0]][parts[2]]
		}
	}
	a.t.Fatalf("unsupported expression %q", ref)
	return ""
}

func (a *actionRun) expand(s string) string {
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		return a.value(expression.FindStringSubmatch(m)[1])
	})
}

// condition evaluates the `if:` forms the action uses: terms joined by &&,
// each always(), or a reference compared with == or != to a quoted string.
// Without always(), a step runs only while no step has failed.
func (a *actionRun) condition(expr string) bool {
	if expr == "" {
		return !a.failed
	}
	m := expression.FindStringSubmatch(expr)
	if m == nil {
		a.t.Fatalf("if: %q is not an expression", expr)
	}
	result, always := true, false
	for _, term := range strings.Split(m[1], "&&") {
		term = strings.TrimSpace(term)
		if term == "always()" {
			always = true
			continue
		}
		op := "=="
		if strings.Contains(term, "!=") {
			op = "!="
		}
		left, right, ok := strings.Cut(term, op)
		right = strings.TrimSpace(right)
		if !ok || len(right) < 2 || right[0] != '\'' || right[len(right)-1] != '\'' {
			a.t.Fatalf("unsupported condition %q", term)
		}
		equal := a.value(strings.TrimSpace(left)) == right[1:len(right)-1]
		result = result && (equal == (op == "=="))
	}
	return result && (always || !a.failed)
}

func (a *actionRun) run(steps []actionStep) {
	t := a.t
	for _, step := range steps {
		name := step.Name
		if name == "" {
			name = step.Uses
		}
		if !a.condition(step.If) {
			a.log = append(a.log, "skip "+name)
			continue
		}
		if step.Uses != "" {
			var with []string
			for k, v := range step.With {
				with = append(with, k+"="+a.expand(v))
			}
			slices.Sort(with)
			a.log = append(a.log, "uses "+step.Uses+" "+strings.Join(with, " "))
			continue
		}
		if step.Shell != "bash" {
			t.Fatalf("step %q: shell %q; this test runs bash steps", name, step.Shell)
		}
		dir := t.TempDir()
		outFile, pathFile := filepath.Join(dir, "output"), filepath.Join(dir, "path")
		env := []string{"GITHUB_OUTPUT=" + outFile, "GITHUB_PATH=" + pathFile, "RUNNER_TEMP=" + dir,
			"GITHUB_WORKSPACE=" + a.workspace, "GITHUB_STEP_SUMMARY=" + a.summary,
			"PATH=" + strings.Join(append(slices.Clone(a.path), os.Getenv("PATH")), string(os.PathListSeparator))}
		for k, v := range step.Env {
			env = append(env, k+"="+a.expand(v))
		}
		res := runShell(t, a.workspace, a.expand(step.Run), append(os.Environ(), env...), "-eo", "pipefail")
		a.stepOutput[name] = res
		a.log = append(a.log, "run "+name+": exit "+strconv.Itoa(res.code))
		if res.code != 0 {
			a.failed = true
		}
		if data, err := os.ReadFile(pathFile); err == nil {
			for _, p := range strings.Fields(string(data)) {
				a.path = append([]string{p}, a.path...)
			}
		}
		if data, err := os.ReadFile(outFile); err == nil && step.ID != "" {
			a.outputs[step.ID] = map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					a.outputs[step.ID][k] = v
				}
			}
		}
	}
}

// newActionRun reads action.yml and prepares a pull_request run of it in
// workspace, with the action's source at this repository.
func newActionRun(t *testing.T, workspace, baseSHA string, with map[string]string) (*actionRun, actionFile) {
	t.Helper()
	var action actionFile
	readYAML(t, "action.yml", &action)
	if action.Runs.Using != "composite" {
		t.Fatalf("action.yml runs %q, want composite", action.Runs.Using)
	}
	a := &actionRun{t: t, workspace: workspace, outputs: map[string]map[string]string{}, stepOutput: map[string]shellResult{},
		summary: filepath.Join(t.TempDir(), "step-summary"),
		github: map[string]string{
			"event.pull_request.base.sha": baseSHA,
			"action_path":                 repoRoot(t),
			"action_ref":                  "main",
		}}
	a.inputs = map[string]string{}
	for name, in := range action.Inputs {
		a.inputs[name] = a.expand(in.Default)
	}
	for k, v := range with {
		if _, ok := action.Inputs[k]; !ok {
			t.Fatalf("with: %s is not an input of action.yml", k)
		}
		a.inputs[k] = v
	}
	return a, action
}

// The Action on a pull request: annotations and a failed job for what the
// pull request adds, and the whole tree's SARIF uploaded.
func TestGitHubActionOnPullRequest(t *testing.T) {
	repo, base := pullRequest(t)
	a, action := newActionRun(t, repo.Dir, base, map[string]string{"paths": "db/migrations"})
	a.run(action.Runs.Steps)

	want := []string{
		"uses actions/setup-go@v5 cache-dependency-path=" + repoRoot(t) + "/go.sum cache=true go-version=stable",
		"run Install idemcheck: exit 0",
		"run Lint migrations: exit 0",
		"uses github/codeql-action/upload-sarif@v3 category=idemcheck sarif_file=idemcheck.sarif",
		"run Fail on findings: exit 1",
	}
	if !slices.Equal(a.log, want) {
		t.Errorf("steps:\n  %s\nwant\n  %s", strings.Join(a.log, "\n  "), strings.Join(want, "\n  "))
	}
	if got := a.outputs["lint"]["exit-code"]; got != "1" {
		t.Errorf("exit-code output %q, want 1", got)
	}
	mustContain(t, "Install idemcheck", a.stepOutput["Install idemcheck"].output, "idemcheck main\n")

	// Annotations: the pull request's findings, none of the old ones.
	var annotated []string
	for _, line := range strings.Split(a.stepOutput["Lint migrations"].output, "\n") {
		if m := regexp.MustCompile(`^::(?:error|warning|notice) file=([^,]+),line=(\d+),col=\d+,title=idemcheck ([a-z-]+)`).FindStringSubmatch(line); m != nil {
			annotated = append(annotated, m[3]+" "+m[1]+":"+m[2])
		}
	}
	slices.Sort(annotated)
	if !slices.Equal(annotated, prNewFindings) {
		t.Errorf("annotations %q, want %q", annotated, prNewFindings)
	}
	mustContain(t, "the annotation step", a.stepOutput["Lint migrations"].output, "11 findings in unchanged files not shown")

	// The job summary: a table with the pull request's findings, and
	// none of the old ones.
	summary := readFile(t, a.summary)
	mustContain(t, "the step summary", summary, "### idemcheck\n",
		"| severity | rule | object | where | finding |\n|---|",
		"| error | `nullable-key` | public.payout_claims.payout_claims_once | db/migrations/000017_create_payout_claims.up.sql:7 | payout_claims.payout_claims_once (account_id, payout_ref, request_id): payout_ref may be NULL",
		"| `unique-dropped` |")
	if rows := strings.Count(summary, "\n| warning |") + strings.Count(summary, "\n| error |") + strings.Count(summary, "\n| info |"); rows != len(prNewFindings) {
		t.Errorf("the step summary has %d finding rows, want the %d new findings:\n%s", rows, len(prNewFindings), summary)
	}

	// SARIF: the whole tree, 11 old findings and 3 new.
	var sarif struct {
		Runs []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(repo.Dir, "idemcheck.sarif"))), &sarif); err != nil {
		t.Fatal(err)
	}
	if len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 14 {
		t.Errorf("SARIF has %d runs; want 1 run with 14 results", len(sarif.Runs))
	}
}

// A shallow checkout (actions/checkout's default depth of 1) has no merge
// base: the lint step says how to fix it, nothing is uploaded, the job
// fails with 2.
func TestGitHubActionShallowCheckout(t *testing.T) {
	repo, base := pullRequest(t)
	clone := filepath.Join(t.TempDir(), "clone")
	repo.Git("clone", "-q", "--depth", "1", "--branch", "pr", "file://"+repo.Dir, clone)
	a, action := newActionRun(t, clone, base, map[string]string{"paths": "db/migrations"})
	a.run(action.Runs.Steps)
	if got := a.outputs["lint"]["exit-code"]; got != "2" {
		t.Errorf("exit-code %q, want 2", got)
	}
	mustContain(t, "Lint migrations", a.stepOutput["Lint migrations"].output, "no such commit in this clone; the clone is shallow", "fetch-depth: 0")
	if !slices.Contains(a.log, "skip Upload SARIF to code scanning") || !slices.Contains(a.log, "run Fail on findings: exit 2") {
		t.Errorf("steps %q: want the upload skipped and the job failed with 2", a.log)
	}
}

// The README's workflow uses only inputs the action has, and checks out the
// whole history that --new-from-rev needs.
func TestREADMEWorkflowMatchesTheAction(t *testing.T) {
	var action actionFile
	readYAML(t, "action.yml", &action)
	found := false
	for _, block := range ciBlocks(t) {
		if block.info != "yaml" || !strings.Contains(block.text, "uses: idemcheck/idemcheck@") {
			continue
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []actionStep `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(block.text), &wf); err != nil {
			t.Fatalf("%s:%d: %v", block.file, block.line, err)
		}
		found = true
		for _, job := range wf.Jobs {
			depth := ""
			for _, step := range job.Steps {
				if strings.HasPrefix(step.Uses, "actions/checkout@") {
					depth = step.With["fetch-depth"]
				}
				if strings.HasPrefix(step.Uses, "idemcheck/idemcheck@") {
					if depth != "0" {
						t.Errorf("%s:%d: checkout fetch-depth %q before the action, want 0 (--new-from-rev needs the base)", block.file, block.line, depth)
					}
					for k := range step.With {
						if _, ok := action.Inputs[k]; !ok {
							t.Errorf("%s:%d: with: %s is not an input of action.yml", block.file, block.line, k)
						}
					}
				}
			}
		}
	}
	if !found {
		t.Fatal("neither README.md nor docs/ci.md has a workflow that uses idemcheck/idemcheck")
	}
}

// --- GitLab CI and Docker snippets in the README ---

// gitlabJob is the part of a GitLab CI job the tests read.
type gitlabJob struct {
	Image     any               `yaml:"image"`
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Artifacts struct {
		When    string `yaml:"when"`
		Reports struct {
			CodeQuality string `yaml:"codequality"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

func readmeGitLabJobs(t *testing.T) map[string]gitlabJob {
	t.Helper()
	jobs := map[string]gitlabJob{}
	for _, block := range ciBlocks(t) {
		if block.info != "yaml" || !strings.Contains(block.text, "CI_MERGE_REQUEST_DIFF_BASE_SHA") {
			continue
		}
		var doc map[string]gitlabJob
		if err := yaml.Unmarshal([]byte(block.text), &doc); err != nil {
			t.Fatalf("%s:%d: %v", block.file, block.line, err)
		}
		for name, job := range doc {
			jobs[name+" ("+block.file+":"+strconv.Itoa(block.line)+")"] = job
		}
	}
	if len(jobs) < 2 {
		t.Fatalf("README.md and docs/ci.md have %d GitLab jobs on the merge request base, want the go install one and the image one", len(jobs))
	}
	return jobs
}

// Each GitLab job's script, run line by line in one shell that stops at the
// first failure (as GitLab runs it) on a merge request's clone: the Code
// Quality report holds the merge request's findings, the job fails.
func TestGitLabJobsOnMergeRequest(t *testing.T) {
	for name, job := range readmeGitLabJobs(t) {
		t.Run(name, func(t *testing.T) {
			repo, base := pullRequest(t)
			if job.Variables["GIT_DEPTH"] != "0" {
				t.Errorf("variables: GIT_DEPTH %q, want 0 (GitLab clones 20 commits deep; the base must be there)", job.Variables["GIT_DEPTH"])
			}
			if job.Artifacts.When != "always" || job.Artifacts.Reports.CodeQuality != "gl-code-quality-report.json" {
				t.Errorf("artifacts %+v: want the Code Quality report kept always", job.Artifacts)
			}
			var lines []string
			for _, line := range job.Script {
				// Substitution: the clone cannot fetch @latest offline; the
				// binary built from this clone is on PATH instead.
				if strings.HasPrefix(line, "go install github.com/idemcheck/idemcheck@") {
					continue
				}
				lines = append(lines, line)
			}
			home := t.TempDir()
			res := runShell(t, repo.Dir, strings.Join(lines, "\n"), environ(
				"CI_MERGE_REQUEST_DIFF_BASE_SHA="+base, "CI_PROJECT_DIR="+repo.Dir,
				"HOME="+home, "GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig")), "-e")
			if res.code != 1 {
				t.Fatalf("exit %d, want 1 (findings):\n%s", res.code, res.output)
			}
			var report []struct {
				CheckName string `json:"check_name"`
				Location  struct {
					Path  string `json:"path"`
					Lines struct {
						Begin int `json:"begin"`
					} `json:"lines"`
				} `json:"location"`
			}
			if err := json.Unmarshal([]byte(readFile(t, filepath.Join(repo.Dir, "gl-code-quality-report.json"))), &report); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range report {
				got = append(got, r.CheckName+" "+r.Location.Path+":"+strconv.Itoa(r.Location.Lines.Begin))
			}
			slices.Sort(got)
			if !slices.Equal(got, prNewFindings) {
				t.Errorf("Code Quality report %q, want %q", got, prNewFindings)
			}
		})
	}
}

// The README's docker run step, with the binary in place of the image (no
// Docker engine here): the same arguments, in the work tree the image's
// WORKDIR mounts.
func TestREADMEDockerRunStep(t *testing.T) {
	const image = " idemcheck:local "
	var step string
	var line int
	for _, block := range ciBlocks(t) {
		if block.info != "yaml" || !strings.Contains(block.text, "docker run") {
			continue
		}
		var steps []actionStep
		if err := yaml.Unmarshal([]byte(block.text), &steps); err != nil {
			t.Fatalf("%s:%d: %v", block.file, block.line, err)
		}
		step, line = strings.TrimSpace(steps[0].Run), block.line
	}
	if !strings.HasPrefix(step, "docker run ") || !strings.Contains(step, image) {
		t.Fatalf("docs/ci.md has no `docker run ...%s...` step: %q", image, step)
	}
	_, stages := readDockerfile(t)
	workdir := ""
	for _, ins := range stages[len(stages)-1].instructions {
		if ins[0] == "WORKDIR" {
			workdir = ins[1]
		}
	}
	prefix, args, _ := strings.Cut(step, image)
	if !strings.Contains(prefix, `-v "$PWD:`+workdir+`"`) {
		t.Errorf("docs/ci.md:%d: %q does not mount the work tree at the image's WORKDIR %s", line, prefix, workdir)
	}
	repo, base := pullRequest(t)
	a := &actionRun{t: t, github: map[string]string{"event.pull_request.base.sha": base}}
	command := "idemcheck " + a.expand(args)
	res := runShell(t, repo.Dir, command, environ())
	if res.code != 1 {
		t.Fatalf("%s: exit %d, want 1\n%s", command, res.code, res.output)
	}
	var annotated []string
	for _, l := range strings.Split(res.output, "\n") {
		if m := regexp.MustCompile(`^::\w+ file=([^,]+),line=(\d+),col=\d+,title=idemcheck ([a-z-]+)`).FindStringSubmatch(l); m != nil {
			annotated = append(annotated, m[3]+" "+m[1]+":"+m[2])
		}
	}
	slices.Sort(annotated)
	if !slices.Equal(annotated, prNewFindings) {
		t.Errorf("%s annotated %q, want %q", command, annotated, prNewFindings)
	}
}

// --- pre-commit ---

type preCommitHook struct {
	ID            string `yaml:"id"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	Exclude       string `yaml:"exclude"`
	PassFilenames *bool  `yaml:"pass_filenames"`
}

func preCommitHooks(t *testing.T) map[string]preCommitHook {
	t.Helper()
	var hooks []preCommitHook
	readYAML(t, ".pre-commit-hooks.yaml", &hooks)
	out := map[string]preCommitHook{}
	for _, h := range hooks {
		out[h.ID] = h
	}
	return out
}

// The idemcheck hook, as pre-commit runs it with args: [db/migrations] and
// pass_filenames: false, on a commit being made: it reports the findings in
// the staged migrations, including the old index whose hole they open.
func TestPreCommitHookReportsTheStagedChange(t *testing.T) {
	hook := preCommitHooks(t)["idemcheck"]
	if hook.PassFilenames == nil || *hook.PassFilenames {
		t.Fatal("the idemcheck hook must not pass file names: the whole tree is replayed")
	}
	repo, _ := pullRequest(t)
	repo.Git("reset", "-q", "--soft", "HEAD~1") // the pull request's migrations, staged
	command := hook.Entry + " db/migrations"
	res := runShell(t, repo.Dir, command, environ())
	if res.code != 1 {
		t.Fatalf("%s: exit %d, want 1:\n%s", command, res.code, res.output)
	}
	var got []string
	for _, line := range strings.Split(res.output, "\n") {
		// An info finding is one line: its message follows the rule.
		if m := regexp.MustCompile(`^(\S+):(\d+):\d+: (?:error|warning|info) ([a-z-]+)(?: |$)`).FindStringSubmatch(line); m != nil {
			got = append(got, m[3]+" "+m[1]+":"+m[2])
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, prNewFindings) {
		t.Errorf("%s reported %q, want %q", command, got, prNewFindings)
	}

	repo.Git("commit", "-q", "-m", "committed")
	if res := runShell(t, repo.Dir, command, environ()); res.code != 0 {
		t.Errorf("with nothing staged: exit %d, want 0:\n%s", res.code, res.output)
	}
}

// The hooks run when SQL other than a down migration is staged, as
// pre-commit matches files and exclude (Python's re.search; these
// patterns mean the same in Go).
func TestPreCommitHookFileFilter(t *testing.T) {
	for id, hook := range preCommitHooks(t) {
		files, exclude := regexp.MustCompile(hook.Files), regexp.MustCompile(hook.Exclude)
		runs := func(name string) bool { return files.MatchString(name) && !exclude.MatchString(name) }
		for _, name := range []string{
			"db/migrations/000017_create_payout_claims.up.sql", "db/migrations/20240101_add_rollback_table.sql",
			"migrations/2024-01-01-000000_users/up.sql", "sql/V2__add_events.sql", "schema.sql",
		} {
			if !runs(name) {
				t.Errorf("%s: does not run for %s", id, name)
			}
		}
		for _, name := range []string{
			"db/migrations/000017_create_payout_claims.down.sql", "migrations/2024-01-01-000000_users/down.sql",
			"sql/U2__add_events.sql", "db/1_x.postgres.down.sql", "db/rollback.sql", "db/0002_users_revert.sql",
			"README.md", "main.go",
		} {
			if runs(name) {
				t.Errorf("%s: runs for %s", id, name)
			}
		}
	}
}

// --- Dockerfile ---

// dockerStage is one FROM ... stage: its instructions in order.
type dockerStage struct {
	from, name   string
	instructions [][2]string // keyword, rest
}

func readDockerfile(t *testing.T) (args map[string]string, stages []*dockerStage) {
	t.Helper()
	args = map[string]string{}
	text := strings.ReplaceAll(readFile(t, "Dockerfile"), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		keyword, rest, _ := strings.Cut(line, " ")
		keyword, rest = strings.ToUpper(keyword), strings.TrimSpace(rest)
		switch {
		case keyword == "FROM":
			from, name, _ := strings.Cut(rest, " AS ")
			stages = append(stages, &dockerStage{from: from, name: strings.TrimSpace(name)})
		case keyword == "ARG" && len(stages) == 0:
			k, v, _ := strings.Cut(rest, "=")
			args[k] = v
		case len(stages) == 0:
			t.Fatalf("Dockerfile: %s before FROM", keyword)
		default:
			stages[len(stages)-1].instructions = append(stages[len(stages)-1].instructions, [2]string{keyword, rest})
		}
	}
	return args, stages
}

// The Dockerfile's build stage, run outside a container: this machine has
// no Docker engine. Its RUN lines run in a copy of the build context with
// /src and /out mapped to directories here and the build arguments set; the
// binary must report the stamped version and commit. The runtime stage is
// checked as written: unprivileged, the binary as entrypoint.
func TestDockerfileBuildStage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemcheck with -trimpath (a minute when the build cache is cold)")
	}
	globalArgs, stages := readDockerfile(t)
	if len(stages) != 2 || stages[0].name != "build" {
		t.Fatalf("Dockerfile has %d stages, want a build stage and a runtime stage", len(stages))
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(readFile(t, "go.mod"))[1]
	if globalArgs["GO_VERSION"] != goVersion || stages[0].from != "golang:${GO_VERSION}-bookworm" {
		t.Errorf("build stage FROM %s with GO_VERSION %s, want the go.mod version %s", stages[0].from, globalArgs["GO_VERSION"], goVersion)
	}

	root, work := repoRoot(t), t.TempDir()
	src, out := filepath.Join(work, "src"), filepath.Join(work, "out")
	buildArgs := map[string]string{"VERSION": "v0.0.0-dockertest", "COMMIT": "0123456789abcdef0123456789abcdef01234567"}
	var env []string
	for _, ins := range stages[0].instructions {
		keyword, rest := ins[0], ins[1]
		switch keyword {
		case "WORKDIR":
			if rest != "/src" {
				t.Fatalf("WORKDIR %s: this test maps /src only", rest)
			}
		case "COPY":
			copyContext(t, root, src)
		case "ARG":
			k, v, _ := strings.Cut(rest, "=")
			if given, ok := buildArgs[k]; ok {
				v = given
			}
			env = append(env, k+"="+v)
		case "RUN":
			script := strings.ReplaceAll(strings.ReplaceAll(rest, "/out/", out+"/"), "/src", src)
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			res := runShell(t, src, script, append(os.Environ(), env...), "-e")
			if res.code != 0 {
				t.Fatalf("RUN %s: exit %d\n%s", rest, res.code, res.output)
			}
			if strings.Contains(rest, "idemcheck version") {
				mustContain(t, "the built binary's version", res.output, "idemcheck v0.0.0-dockertest\n",
					"commit:             0123456789abcdef0123456789abcdef01234567\n")
			}
		default:
			t.Fatalf("build stage: %s is not run by this test", keyword)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "idemcheck")); err != nil {
		t.Fatalf("the build stage left no /out/idemcheck: %v", err)
	}
	// The context is the sources alone: no fixtures, docs or benches.
	for _, left := range []string{"testdata", "docs", "bench", "audit/testdata", ".git"} {
		if _, err := os.Stat(filepath.Join(src, left)); err == nil {
			t.Errorf(".dockerignore leaves %s in the build context", left)
		}
	}
	for _, kept := range []string{"LICENSE", "NOTICE", "THIRD_PARTY.md"} {
		if _, err := os.Stat(filepath.Join(src, kept)); err != nil {
			t.Errorf("the build context lacks %s, which the image carries: %v", kept, err)
		}
	}

	runtimeStage := stages[1]
	var user, entrypoint, copied string
	for _, ins := range runtimeStage.instructions {
		switch ins[0] {
		case "USER":
			user = ins[1]
		case "ENTRYPOINT":
			var argv []string
			if err := json.Unmarshal([]byte(ins[1]), &argv); err != nil || len(argv) != 1 {
				t.Fatalf("ENTRYPOINT %s: want the binary alone, in exec form", ins[1])
			}
			entrypoint = argv[0]
		case "COPY":
			if f := strings.Fields(ins[1]); len(f) == 3 && f[0] == "--from=build" && f[1] == "/out/idemcheck" {
				copied = f[2]
			}
		}
	}
	if user == "" || user == "root" || user == "0" {
		t.Errorf("the runtime stage runs as %q, want an unprivileged user", user)
	}
	if entrypoint == "" || entrypoint != copied {
		t.Errorf("ENTRYPOINT %q, want the binary copied from the build stage (%q)", entrypoint, copied)
	}
	// Every package the runtime stage installs is pinned to a version.
	for _, ins := range runtimeStage.instructions {
		if ins[0] != "RUN" {
			continue
		}
		for _, m := range regexp.MustCompile(`apt-get install ([^&]*)`).FindAllStringSubmatch(ins[1], -1) {
			for _, word := range strings.Fields(strings.ReplaceAll(m[1], "\\", " ")) {
				if !strings.HasPrefix(word, "-") && !strings.Contains(word, "=") {
					t.Errorf("the runtime stage installs %s without a pinned version", word)
				}
			}
		}
	}
}

// copyContext copies the Docker build context: the repository's files less
// what .dockerignore names.
func copyContext(t *testing.T, root, dst string) {
	t.Helper()
	var ignored []string
	for _, line := range strings.Split(readFile(t, filepath.Join(root, ".dockerignore")), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			ignored = append(ignored, strings.TrimPrefix(line, "/"))
		}
	}
	skip := func(rel string) bool {
		for _, pattern := range ignored {
			if ok, _ := filepath.Match(pattern, rel); ok || strings.HasPrefix(rel, pattern+"/") {
				return true
			}
			// Docker's "**/name" matches name at any depth.
			if base, ok := strings.CutPrefix(pattern, "**/"); ok {
				for _, part := range strings.Split(rel, "/") {
					if m, _ := filepath.Match(base, part); m {
						return true
					}
				}
			}
		}
		return false
	}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel != "." && skip(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// install: release downloads the tag's archive and checksums.txt, checks
// the archive against them, and puts the binary on PATH without Go. The
// release server is a loopback one serving an archive shaped like
// goreleaser's (.goreleaser.yaml's name_template); a tampered archive
// fails the step.
func TestGitHubActionInstallsARelease(t *testing.T) {
	const tag = "v0.0.0-actiontest"
	archive := "idemcheck_" + tag + "_linux_" + runtime.GOARCH + ".tar.gz"
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	bin, err := os.ReadFile(filepath.Join(binDir, "idemcheck"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"LICENSE", 0o644, []byte(readFile(t, "LICENSE"))}, {"idemcheck", 0o755, bin}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tgz.Bytes())
	checksums := hex.EncodeToString(sum[:]) + "  " + archive + "\n"
	served := map[string][]byte{"/" + tag + "/" + archive: tgz.Bytes(), "/" + tag + "/checksums.txt": []byte(checksums)}
	var requests []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.URL.Path)
		body, ok := served[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()

	repo, base := pullRequest(t)
	a, action := newActionRun(t, repo.Dir, base, map[string]string{"paths": "db/migrations", "install": "release", "version": tag, "release-url": srv.URL})
	a.run(action.Runs.Steps)
	if len(a.log) == 0 || a.log[0] != "skip actions/setup-go@v5" {
		t.Errorf("steps %q: want setup-go skipped (no Go needed for a release)", a.log)
	}
	if !slices.Contains(a.log, "run Install idemcheck: exit 0") || a.outputs["lint"]["exit-code"] != "1" {
		t.Fatalf("steps %q, lint exit %q; want the release installed and the findings reported\n%s", a.log, a.outputs["lint"]["exit-code"], a.stepOutput["Install idemcheck"].output)
	}
	mustContain(t, "Install idemcheck", a.stepOutput["Install idemcheck"].output, archive+": OK")
	if len(requests) != 2 {
		t.Errorf("release requests %q, want the archive and checksums.txt", requests)
	}

	// The same archive with a byte changed: the checksum refuses it and
	// nothing is linted.
	mu.Lock()
	bad := slices.Clone(tgz.Bytes())
	bad[len(bad)/2] ^= 0xff
	served["/"+tag+"/"+archive] = bad
	mu.Unlock()
	a, action = newActionRun(t, repo.Dir, base, map[string]string{"paths": "db/migrations", "install": "release", "version": tag, "release-url": srv.URL})
	a.run(action.Runs.Steps)
	if !slices.Contains(a.log, "run Install idemcheck: exit 1") || slices.Contains(a.log, "run Lint migrations: exit 0") {
		t.Errorf("steps %q: want the install to fail on the checksum and no lint run", a.log)
	}
	mustContain(t, "Install idemcheck", a.stepOutput["Install idemcheck"].output, "FAILED")

	// install: release without a version says what is missing.
	a, action = newActionRun(t, repo.Dir, base, map[string]string{"paths": "db/migrations", "install": "release", "release-url": srv.URL})
	a.run(action.Runs.Steps)
	mustContain(t, "Install idemcheck", a.stepOutput["Install idemcheck"].output, "install: release needs version")
}
