package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// The commands list, check and complete --format from the registry, in this
// order; text comes first because it is the default.
func TestFormatRegistry(t *testing.T) {
	want := []string{"text", "json", "sarif", "github", "gitlab"}
	if got := FormatNames(); !slices.Equal(got, want) {
		t.Errorf("formats %q, want %q", got, want)
	}
	help := "text, json, sarif (code scanning), github (workflow annotations) or gitlab (Code Quality)"
	if got := FormatHelp(); got != help {
		t.Errorf("help %q, want %q", got, help)
	}
	for _, name := range want {
		if f := LookupFormat(name); f == nil || f.Name != name {
			t.Errorf("LookupFormat(%q) = %+v", name, f)
		}
	}
}

// Write writes through the named format, and a name nobody registered is
// an error that lists the formats, not text in disguise.
func TestWriteByName(t *testing.T) {
	var viaName, direct bytes.Buffer
	if err := Write(&viaName, sampleDocument(), "github", Options{}); err != nil {
		t.Fatal(err)
	}
	if err := GitHub(&direct, sampleDocument(), Options{}); err != nil {
		t.Fatal(err)
	}
	if viaName.String() != direct.String() {
		t.Errorf("Write(github) differs from GitHub:\n%s\n---\n%s", viaName.String(), direct.String())
	}
	var buf bytes.Buffer
	err := Write(&buf, sampleDocument(), "xml", Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) || !strings.Contains(err.Error(), "text or json or sarif or github or gitlab") {
		t.Errorf("Write(xml) = %v, want an error listing the formats", err)
	}
	if buf.Len() != 0 {
		t.Errorf("Write(xml) wrote %q", buf.String())
	}
}
