package request

// The JSON of the answers: one encoder that the command line's --format
// json and the HTTP API both write with, so that their bytes agree.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
)

// Version is the polyvol release printed by `polyvol version`.
const Version = "0.1.0-dev"

// FullVersion is Version followed by the commit the binary was built from:
// the vcs.revision that `go build` stamps into a binary built in a Git
// checkout, with "+modified" for uncommitted changes, or "unknown" when the
// build carries no stamp (go test, go run of a single file, Bazel).
func FullVersion() string {
	commit, modified := "unknown", false
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += "+modified"
	}
	return Version + " (commit " + commit + ")"
}

// JSONSchemaVersion numbers the format of the JSON output (docs/json.md):
// it grows when a key is renamed or removed or changes its meaning, not
// when keys are added.
const JSONSchemaVersion = 3

// JSONVersion holds the keys that WriteJSON puts first in every JSON
// object it writes, so that a reader can tell which polyvol wrote it.
type JSONVersion struct {
	SchemaVersion  int    `json:"schemaVersion"`
	PolyvolVersion string `json:"polyvolVersion"`
}

// WriteJSON writes v, which encodes as a JSON object, as indented JSON with
// the version keys (schemaVersion, polyvolVersion) first, followed by a
// newline. Field order follows the Go structs, so the same value always
// gives the same bytes.
func WriteJSON(w io.Writer, v any) error {
	data, err := versionedJSON(v)
	if err != nil {
		return err
	}
	return writeIndentedJSON(w, data)
}

// WriteJSONLine writes v as WriteJSON does, but compact on one line: for
// a JSON object among lines of text, such as an error on standard error.
func WriteJSONLine(w io.Writer, v any) error {
	data, err := versionedJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// versionedJSON returns the compact JSON of v, which encodes as a JSON
// object, with the version keys first.
func versionedJSON(v any) ([]byte, error) {
	head, err := compactJSON(JSONVersion{JSONSchemaVersion, FullVersion()})
	if err != nil {
		return nil, err
	}
	body, err := compactJSON(v)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("WriteJSON: %T is not a JSON object", v)
	}
	if len(body) > 2 {
		head = append(head[:len(head)-1], ',') // drop '}', keep body's
	} else {
		body = body[1:]
	}
	return append(head, body[1:]...), nil
}

// WriteJSONValue writes v as indented JSON followed by a newline, without
// the version keys: for output that is itself an input, as a device file.
func WriteJSONValue(w io.Writer, v any) error {
	data, err := compactJSON(v)
	if err != nil {
		return err
	}
	return writeIndentedJSON(w, data)
}

// compactJSON encodes v without HTML escaping, so that "<=" stays readable.
func compactJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// writeIndentedJSON writes compact JSON data indented by two spaces, with a
// final newline.
func writeIndentedJSON(w io.Writer, data []byte) error {
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}
