package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/request"
)

// TestErrorJSON checks the error of a failing command run with --format
// json: one line of JSON on stderr, valid under docs/schema/error, nothing
// on stdout, the exit code of the plain run, the kind of the failure and
// the position and field where known; its message, with the position put
// back, is the plain run's error line. The schema refuses the error
// without its message or with a key added.
func TestErrorJSON(t *testing.T) {
	sch := compileSchema(t, "error")
	const spec = hostileDir + "/spec-element-odd.yaml"
	const deviceFile = hostileDir + "/device-sms-string.yaml"
	for _, tc := range []struct {
		name string
		args []string
		want request.Description // all but the message
	}{
		{"spec", []string{"predict", spec}, request.Description{Kind: "input", File: spec, Line: 7, Column: 14, Field: `field "A" element`}},
		{"device-file", []string{"predict", "vec-copy", "--device-file", deviceFile}, request.Description{Kind: "input", File: deviceFile, Line: 46, Field: "sms"}},
		{"unknown-device", []string{"predict", "vec-copy", "--device", "NOPE"}, request.Description{Kind: "input", Field: "device"}},
		{"bad-flag", []string{"explore", "vec-copy", "--threads", "3"}, request.Description{Kind: "input", Field: "threads"}},
		{"unknown-flag", []string{"predict", "vec-copy", "--bogus"}, request.Description{Kind: "input"}},
		{"work-bound", []string{"predict", "star3d-r4", "--max-work", "1"}, request.Description{Kind: "work-bound"}},
		{"no-fit", []string{"predict", "star3d-r4", "--block", "1024,1,1", "--registers", "255"}, request.Description{Kind: "no-fit"}},
	} {
		plainOut, plain, plainCode := run(t, tc.args...)
		out, errOut, code := run(t, append(tc.args, "--format", "json")...)
		if plainCode != ExitUsage || plainOut != "" {
			t.Fatalf("%s: the plain run exits %d with %d bytes of output; want a user error", tc.name, plainCode, len(plainOut))
		}
		if code != plainCode || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line on stderr", tc.name, code, out, errOut, plainCode)
			continue
		}
		doc := decodeJSON(t, errOut)
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: the error does not follow %s:\n%v", tc.name, sch.Location, err)
		}
		obj := doc.(map[string]any)
		obj["extra"] = true
		if sch.Validate(obj) == nil {
			t.Errorf("%s: the schema accepts the error with a key added", tc.name)
		}
		delete(obj, "extra")
		delete(obj, "message")
		if sch.Validate(obj) == nil {
			t.Errorf("%s: the schema accepts the error without its message", tc.name)
		}
		var got struct {
			request.JSONVersion
			request.Description
		}
		dec := json.NewDecoder(strings.NewReader(errOut))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Errorf("%s: stderr %q is not an error's JSON: %v", tc.name, errOut, err)
			continue
		}
		if got.SchemaVersion != request.JSONSchemaVersion || got.PolyvolVersion != request.FullVersion() {
			t.Errorf("%s: version keys %+v", tc.name, got.JSONVersion)
		}
		message := got.Message
		got.Message = ""
		if got.Description != tc.want {
			t.Errorf("%s: %+v; want %+v", tc.name, got.Description, tc.want)
		}
		position := ""
		switch {
		case got.Column != 0:
			position = fmt.Sprintf("%s:%d:%d: ", got.File, got.Line, got.Column)
		case got.Line != 0:
			position = fmt.Sprintf("%s:%d: ", got.File, got.Line)
		}
		// The plain line names the position where the message's file error
		// starts: at its start for a spec, after "device file " for a
		// device file.
		line := strings.TrimSuffix(strings.TrimPrefix(plain, "polyvol: "), "\n")
		if position != "" && strings.Replace(line, position, "", 1) == line {
			t.Errorf("%s: the plain line %q does not name the position %q", tc.name, line, position)
		}
		if strings.Replace(line, position, "", 1) != message {
			t.Errorf("%s: message %q; want the plain line %q without its position", tc.name, message, line)
		}
	}
}

// TestErrorJSONOnlyWithJSON checks that --format json asks for JSON errors
// only as a flag: the default and other formats keep the plain line, and
// so does the word json after "--".
func TestErrorJSONOnlyWithJSON(t *testing.T) {
	for _, args := range [][]string{
		{"predict", "vec-copy", "--device", "NOPE"},
		{"predict", "vec-copy", "--device", "NOPE", "--format", "csv"},
		{"predict", "--device", "NOPE", "--", "--format", "json"},
	} {
		_, errOut, code := run(t, args...)
		if code != ExitUsage || !strings.HasPrefix(errOut, "polyvol: ") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and a plain line", args, code, errOut)
		}
	}
	_, errOut, code := run(t, "predict", "vec-copy", "--device", "NOPE", "--format=json")
	if code != ExitUsage || !strings.HasPrefix(errOut, "{") {
		t.Errorf("--format=json: exit %d, stderr %q; want exit 2 and JSON", code, errOut)
	}
}
