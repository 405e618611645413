package importer

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestNodePos(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: 1\nb:\n  - x\n"), &doc); err != nil {
		t.Fatal(err)
	}
	item := doc.Content[0].Content[3].Content[0] // the "x" of b's list
	if got, want := NodePos(item), (Pos{Line: 3, Col: 5}); got != want {
		t.Errorf("NodePos(x) = %v, want %v", got, want)
	}
	if got := NodePos(nil); got != (Pos{}) {
		t.Errorf("NodePos(nil) = %v, want the zero Pos", got)
	}
}

func TestSpecName(t *testing.T) {
	for file, want := range map[string]string{
		"dir/star2d.jscop":  "star2d",
		"kernel.c":          "kernel",
		"a.b.yml":           "a.b",
		"noext":             "noext",
		"-":                 "fallback",
		"<stdin>":           "fallback",
		"":                  "fallback",
		"dir/.yml":          "fallback",
		"/path/to/<pseudo>": "fallback",
	} {
		if got := SpecName(file, "fallback"); got != want {
			t.Errorf("SpecName(%q) = %q, want %q", file, got, want)
		}
	}
}

func TestUnboundConstants(t *testing.T) {
	uses := []Use{{Name: "N", Pos: Pos{Line: 1, Col: 3}}, {Name: "M", Pos: Pos{Line: 2, Col: 1}}, {Name: "K", Pos: Pos{Line: 4, Col: 2}}}
	unbound, err := UnboundConstants("k.yml", map[string]int64{"M": 8}, uses, "the kernel description")
	if err != nil || fmt.Sprint(unbound) != fmt.Sprint([]Use{uses[0], uses[2]}) {
		t.Errorf("with M bound: %v, %v; want the uses of N and K", unbound, err)
	}
	_, err = UnboundConstants("k.yml", map[string]int64{"M": 8, "Q": 2}, uses, "the kernel description")
	want := "k.yml: -D Q=2: the kernel description has no constant Q; its constants are K, M, N"
	if err == nil || err.Error() != want {
		t.Errorf("with an unknown -D: %v, want %q", err, want)
	}
	if unbound, err := UnboundConstants("k.yml", nil, nil, "the kernel code"); err != nil || unbound != nil {
		t.Errorf("no constants: %v, %v", unbound, err)
	}
	if _, err := UnboundConstants("k.yml", map[string]int64{"A": 1}, nil, "the kernel code"); err == nil || !strings.HasSuffix(err.Error(), "it has no constants") {
		t.Errorf("a -D for an input without constants: %v, want a refusal that says it has no constants", err)
	}
}
