package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
	"github.com/idemcheck/idemcheck/racetest/httprace"
)

// everyOtherRound is a target that is broken in odd rounds (a
// read-then-write with a window) and sound in even ones (an atomic claim),
// read from the X-Round header. It counts its own effects, so the oracle
// knows which rounds caught the race.
type everyOtherRound struct {
	racy  groundtruth.ReadCheckWrite
	sound groundtruth.Sound
}

func (g *everyOtherRound) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n, _ := strconv.Atoi(r.Header.Get("X-Round")); n%2 == 1 {
		g.racy.ServeHTTP(w, r)
		return
	}
	g.sound.ServeHTTP(w, r)
}

func (g *everyOtherRound) Count(ctx context.Context, key string) (int, error) {
	a, _ := g.racy.Count(ctx, key)
	b, _ := g.sound.Count(ctx, key)
	return a + b, nil
}

func (g *everyOtherRound) Doubled(ctx context.Context) (int, error) { return g.racy.Doubled(ctx) }

// chromium finds the headless browser the timeline test renders with; a
// missing one skips the test, except under CI=true, where it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (apt-get install -y chromium); CI=true needs it to render the race timeline")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium): the race timeline is not rendered")
	return ""
}

// The timeline is the picture of a run: rendered in headless Chromium, it
// has one row per round, the caught colour in the rounds where the target
// counted two effects and the missed colour where it counted one, and the
// request's secrets redacted as the text output redacts them.
func TestRaceTimelineRendersRoundsByOutcome(t *testing.T) {
	browser := chromium(t)
	g := &everyOtherRound{sound: groundtruth.Sound{Replay: groundtruth.Marked}}
	srv, err := groundtruth.Start(httprace.StampArrival(g), g)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	svg := filepath.Join(dir, "timeline.svg")
	const rounds = 6
	code, out, errs := runCmd(t, "race", "http", "--rounds", strconv.Itoa(rounds), "--settle", "5ms", "--window", "50ms", "--format", "json",
		"-H", "Idempotency-Key: {{key}}", "-H", "X-Round: {{round}}",
		"-H", "Authorization: Bearer sk_live_topsecret", "-H", "X-Api-Key: apikey-hush", "-H", "Cookie: session=cookie-hush",
		"--secret-header", "x-api-key", "--effect-url", srv.EffectsURL, "--timeline", svg, "-d", `{"amount":100}`, srv.URL)
	var res racetest.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("exit %d, not JSON (%v):\n%s\nstderr: %s", code, err, out, errs)
	}
	if len(res.Rounds) != rounds {
		t.Fatalf("%d rounds in the result, want %d", len(res.Rounds), rounds)
	}
	text, err := os.ReadFile(svg)
	if err != nil {
		t.Fatalf("--timeline wrote no file: %v (exit %d, stderr %s)", err, code, errs)
	}
	for _, secret := range []string{"sk_live_topsecret", "apikey-hush", "cookie-hush"} {
		if strings.Contains(string(text), secret) {
			t.Errorf("the timeline shows the secret %q", secret)
		}
	}
	if !strings.Contains(string(text), "[Authorization: &lt;redacted&gt;]") || !strings.Contains(string(text), "[X-Api-Key: &lt;redacted&gt;]") {
		t.Errorf("the timeline does not show the request with its secrets redacted:\n%.600s", text)
	}

	png := filepath.Join(dir, "timeline.png")
	height := racetest.TimelineRowTop(res.N, rounds) + 40
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--force-device-scale-factor=1", fmt.Sprintf("--window-size=900,%d", height), "--screenshot="+png, "file://"+svg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, b)
	}
	img := readPNG(t, png)

	caught, missed := 0, 0
	for i := range res.Rounds {
		r := &res.Rounds[i]
		if r.Effects == nil {
			t.Fatalf("round %d: the oracle counted nothing", r.Index)
		}
		y := racetest.TimelineRowTop(res.N, i) + racetest.TimelineRowHeight(res.N)/2
		got := img.At(racetest.TimelineMarkX+racetest.TimelineMarkWidth/2, y)
		want, word := racetest.ColourMissed, "missed"
		if *r.Effects > 1 {
			want, word = racetest.ColourCaught, "caught"
			caught++
		} else {
			missed++
		}
		if !near(got, want) {
			t.Errorf("round %d (%d effects counted): its row is %v, want the %s colour %s", r.Index, *r.Effects, got, word, want)
		}
	}
	if caught == 0 || missed == 0 {
		t.Fatalf("the target should double its effect in odd rounds only; caught %d, missed %d rounds", caught, missed)
	}
	if rows := markRuns(img); rows != rounds {
		t.Errorf("the picture has %d rows of round marks, want one per round (%d)", rows, rounds)
	}
}

func readPNG(t *testing.T, name string) image.Image {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	return img
}

// markRuns counts the coloured marks down the column of round marks, below
// the legend: one run of a round colour per row.
func markRuns(img image.Image) int {
	x := racetest.TimelineMarkX + racetest.TimelineMarkWidth/2
	runs, in := 0, false
	for y := racetest.TimelineTop - 2; y < img.Bounds().Max.Y; y++ {
		c := img.At(x, y)
		mark := near(c, racetest.ColourCaught) || near(c, racetest.ColourMissed) || near(c, racetest.ColourUnjudged)
		if mark && !in {
			runs++
		}
		in = mark
	}
	return runs
}

// near reports whether c is the colour hex (#rrggbb) give or take a little.
func near(c color.Color, hex string) bool {
	v, _ := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	r, g, b, _ := c.RGBA()
	d := func(a uint32, want uint64) bool { return int(a>>8)-int(want) <= 4 && int(want)-int(a>>8) <= 4 }
	return d(r, v>>16&0xff) && d(g, v>>8&0xff) && d(b, v&0xff)
}
