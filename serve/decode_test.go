package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
)

// TestDecodeObjectValues checks the string forms of the values of a valid
// body, whitespace and escapes included.
func TestDecodeObjectValues(t *testing.T) {
	body := " {\n  \"device\": \"H100-SXM\", \"block\": 256, \"fold\": \"1,1,2\",\t\"infinite\": true, \"split-l2\": false, \"spec\": \"name: a\\n\\td\\u00e9j\\u00e0\" }\n"
	got, err := decodeObject([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"device": "H100-SXM", "block": "256", "fold": "1,1,2", "infinite": "true", "split-l2": "false", "spec": "name: a\n\tdéjà"}
	if !maps.Equal(got, want) {
		t.Errorf("decodeObject = %q, want %q", got, want)
	}
	if got, err := decodeObject([]byte("{}")); err != nil || len(got) != 0 {
		t.Errorf("decodeObject({}) = %q, %v; want no values", got, err)
	}
	// A value reaches the command as it is, which refuses a device name
	// with a control character under the flag's name (--device).
	if got, err := decodeObject([]byte(`{"device": "A100\u0000"}`)); err != nil || got["device"] != "A100\x00" {
		t.Errorf("decodeObject of a NUL in a value = %q, %v; want the value unchanged", got, err)
	}
}

// TestDecodeObjectDuplicateKeys checks that a key given twice is refused,
// also when an escape spells it differently, with the byte offsets of both
// occurrences, which the test finds in the body itself.
func TestDecodeObjectDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		body, key, first, second string // first and second: the text of each occurrence
	}{
		{`{"device":"A100-40GB","device":"H100-SXM"}`, "device", `"device"`, `"device"`},
		{"{ \"block\" : \"1,1,1\" ,\n  \"fold\": 2,\n\t\"block\": \"2,1,1\"}", "block", `"block"`, `"block"`},
		{`{"device":"A100-40GB","d\u0065vice":"H100-SXM"}`, "device", `"device"`, `"d\u0065vice"`},
		{`{"x":1,"y":2,"x":[1,2]}`, "x", `"x"`, `"x"`},
	} {
		first, second := strings.Index(tc.body, tc.first), strings.LastIndex(tc.body, tc.second)
		_, err := decodeObject([]byte(tc.body))
		want := fmt.Sprintf("key %q at byte offset %d: given twice, first at byte offset %d", tc.key, second, first)
		if err == nil || err.Error() != want {
			t.Errorf("decodeObject(%q) = %v, want %q", tc.body, err, want)
		}
	}
}

// TestDecodeObjectErrors checks the bodies decodeObject refuses and that
// each error says what is wrong and where.
func TestDecodeObjectErrors(t *testing.T) {
	deep := `{"block": ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"{\"dev\\u0000ice\": \"A100-40GB\"}", []string{`key "dev\x00ice" at byte offset 1`, "control character U+0000 at byte 3 of the key"}},
		{"{\"a\": 1, \"dev\x7fice\": \"A100-40GB\"}", []string{`key "dev\x7fice" at byte offset 9`, "U+007F"}},
		{"{\"device\": \"A100\xff\"}", []string{"invalid UTF-8 at byte offset 16"}},
		{"{\"device\xc0\": \"A100\"}", []string{"invalid UTF-8 at byte offset 8"}},
		{deep, []string{`key "block" at byte offset 1: expected a string, number or boolean`}},
		{`{"block": {"x": 1}}`, []string{`key "block"`, "expected a string, number or boolean"}},
		{`{"block": null}`, []string{`key "block"`, "expected a string, number or boolean"}},
		{`{"block": "1,1,1"} {}`, []string{"more text follows it at byte offset 19"}},
		{`{"block": "1,1,1"}}`, []string{"more text follows it at byte offset 18"}},
		{`[]`, []string{"expected a JSON object", "got an array"}},
		{`"device"`, []string{"expected a JSON object", "got a string"}},
		{`null`, []string{"expected a JSON object", "got null"}},
		{`{"block": "1,1,1",}`, []string{"expected a JSON object", "byte offset"}},
		{`{"block" "1,1,1"}`, []string{"expected a JSON object", "byte offset"}},
		{`{"block": "1,1,1"`, []string{"expected a JSON object", "ends inside the object"}},
		{`{"block": `, []string{"expected a JSON object", "ends inside the object"}},
		{`not json`, []string{"expected a JSON object", "byte offset"}},
		{`{1: 2}`, []string{"expected a JSON object", "byte offset"}},
		{`{"` + strings.Repeat("é", 5000) + `": 1, "` + strings.Repeat("é", 5000) + `": 2}`, []string{`key "` + strings.Repeat("é", 32) + `"… at byte offset 10008: given twice, first at byte offset 1`}},
	} {
		_, err := decodeObject([]byte(tc.body))
		if err == nil {
			t.Errorf("decodeObject(%.60q) succeeded", tc.body)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("decodeObject(%.60q) = %v, want %q in it", tc.body, err, w)
			}
		}
		if len(err.Error()) > 300 || strings.Contains(err.Error(), "\n") {
			t.Errorf("decodeObject(%.60q): error is not one short line: %.400q", tc.body, err)
		}
	}
}

// FuzzDecodeObject checks decodeObject against encoding/json: a body it
// accepts is a JSON object of distinct keys with string, number or boolean
// values, and it returns the values encoding/json finds, in string form;
// every error is one line.
func FuzzDecodeObject(f *testing.F) {
	for _, body := range []string{
		`{}`, `{"device":"A100-40GB","device":"H100-SXM"}`, `{"block": 256, "infinite": true, "fold": "1,1,2"}`,
		"{\"a\\u0000\": 1}", `{"x": [1]}`, `{"a": "b"} x`, `{"a": 1e400}`, "{\"s\": \"\xff\"}",
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeObject(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want map[string]any
		if err := dec.Decode(&want); err != nil || want == nil {
			t.Fatalf("decodeObject accepted %q, which encoding/json decodes to %v, %v", data, want, err)
		}
		if len(got) != len(want) {
			t.Fatalf("decodeObject(%q) = %q, encoding/json finds %v", data, got, want)
		}
		for k, v := range want {
			var s string
			switch v := v.(type) {
			case string:
				s = v
			case json.Number:
				s = v.String()
			case bool:
				s = fmt.Sprint(v)
			default:
				t.Fatalf("decodeObject(%q) accepted key %q with value %v", data, k, v)
			}
			if got[k] != s {
				t.Fatalf("decodeObject(%q)[%q] = %q, encoding/json finds %q", data, k, got[k], s)
			}
		}
	})
}
