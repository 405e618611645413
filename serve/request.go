package serve

// Requests: a JSON object whose keys are the CLI's flag names with the
// CLI's string forms, from a whitelist of flags per endpoint.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/request"
	"github.com/polyvol/polyvol/similar"
)

// Request keys that select the kernel spec instead of naming a flag.
const (
	keySpec    = "spec"    // the spec's YAML or JSON text
	keyExample = "example" // the name of an embedded example
)

// endpoint describes the requests of one command endpoint.
type endpoint struct {
	command string
	// flags are the request keys besides spec and example: the command's
	// flag names.
	flags []string
	// lists bounds the entries of the keys whose value is a colon-separated
	// list, since each entry multiplies the work of the request.
	lists map[string]int
	// parallel commands estimate on several slots (claim parallel).
	parallel bool
}

// The command endpoints. Flags that name files (--device-file, --plot,
// --registers-table, --cpuprofile), choose the output (--format, --top)
// or move the server's bounds (--max-work, --max-memory,
// --max-accesses, --max-configurations, --max-points, --workers) are not
// request keys: the server sets what it needs itself.
var (
	predictEndpoint = endpoint{command: "predict",
		flags: []string{"device", "block", "fold", "tile", "unstaged", "steps", "registers", "domain", "method", "model", "instructions"}}
	simulateEndpoint = endpoint{command: "simulate",
		flags: []string{"device", "block", "fold", "tile", "unstaged", "domain", "infinite", "l1-policy", "l2-policy", "split-l2", "schedule"}}
	layercondEndpoint = endpoint{command: "layercond",
		flags: []string{"device", "block", "fold", "sweep", "total", "inner", "method", "cache-fraction"},
		lists: map[string]int{"block": 4}, parallel: true}
	exploreEndpoint = endpoint{command: "explore",
		flags: []string{"device", "threads", "folds", "tiles", "staging", "steps", "registers", "domain", "method", "model", "instructions", "shard"},
		lists: map[string]int{"folds": 8}, parallel: true}
)

// readValues reads the request body, a JSON object of flag names and
// values (strings, numbers or booleans in the CLI's string forms), and
// checks its keys against ep (checkKeys). An empty body is the empty
// object.
func readValues(r *http.Request, ep endpoint) (map[string]string, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, &request.Error{Err: fmt.Errorf("request body larger than %d bytes", tooLarge.Limit)}
		}
		return nil, &request.Error{Err: fmt.Errorf("reading the request body: %w", err)}
	}
	values := map[string]string{}
	if len(bytes.TrimSpace(data)) > 0 {
		if values, err = decodeObject(data); err != nil {
			return nil, &request.Error{Err: fmt.Errorf("request body: %w", err)}
		}
	}
	return values, ep.checkKeys(values)
}

// expectedObject starts the errors of a body that is not one JSON object.
const expectedObject = "expected a JSON object of flag names and values"

// checkUTF8 returns the error of a body that is not UTF-8, naming the
// first bad byte.
func checkUTF8(data []byte) error {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("invalid UTF-8 at byte offset %d; a request body is JSON in UTF-8", i)
		}
		i += size
	}
	return nil
}

// syntax words an error of the JSON decoder about a body that is not one
// JSON object.
func syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: %v (at byte offset %d)", expectedObject, err, se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: the body ends inside the object", expectedObject)
	}
	return fmt.Errorf("%s: %w", expectedObject, err)
}

// quote quotes a key for a message, cut to 64 bytes at a character
// boundary.
func quote(key string) string {
	if len(key) <= 64 {
		return strconv.Quote(key)
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(key[cut]) {
		cut--
	}
	return strconv.Quote(key[:cut]) + "…"
}

// decodeObject decodes one JSON object whose values are strings, numbers or
// booleans into their string forms. It reads the object token by token, so
// that a key given twice is an error instead of the last value winning, and
// a value that is an array or an object is refused at its opening bracket,
// before anything nested is read. The body must be UTF-8 and the keys free
// of control characters; errors give byte offsets into the body, 0-based.
func decodeObject(data []byte) (map[string]string, error) {
	if err := checkUTF8(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if tok != json.Delim('{') {
		got := "null"
		switch tok.(type) {
		case json.Delim:
			got = "an array"
		case string:
			got = "a string"
		case json.Number:
			got = "a number"
		case bool:
			got = "a boolean"
		}
		return nil, fmt.Errorf("%s, got %s", expectedObject, got)
	}
	values := map[string]string{}
	offsets := map[string]int64{} // byte offset of each key's opening quote
	for dec.More() {
		at := dec.InputOffset() // the end of the previous token
		for at < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[at]) >= 0 {
			at++
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		k, ok := tok.(string)
		if !ok { // the decoder reads only strings as keys
			return nil, fmt.Errorf("%s: key at byte offset %d is not a string", expectedObject, at)
		}
		for i, r := range k {
			if r < 0x20 || 0x7f <= r && r <= 0x9f {
				return nil, fmt.Errorf("key %s at byte offset %d: control character %U at byte %d of the key; keys are flag names", quote(k), at, r, i)
			}
		}
		if first, dup := offsets[k]; dup {
			return nil, fmt.Errorf("key %s at byte offset %d: given twice, first at byte offset %d", quote(k), at, first)
		}
		offsets[k] = at
		if tok, err = dec.Token(); err != nil {
			return nil, syntax(err)
		}
		switch v := tok.(type) {
		case string:
			values[k] = v
		case json.Number:
			values[k] = v.String()
		case bool:
			values[k] = fmt.Sprint(v)
		default:
			return nil, fmt.Errorf("key %s at byte offset %d: expected a string, number or boolean in the CLI's form, e.g. \"256,1,2\"", quote(k), at)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, syntax(err)
	}
	end := len(data) - len(bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"))
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("expected one JSON object, but more text follows it at byte offset %d", end)
	}
	return values, nil
}

// checkKeys checks request values against ep, in the order of their keys:
// "spec" or "example" (not both, and an example that exists) or a key of
// ep.flags, each list within its bound.
func (ep endpoint) checkKeys(values map[string]string) error {
	spec := false
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v := values[k]
		switch {
		case k == keySpec || k == keyExample:
			if spec {
				return &request.Error{Err: errors.New(`give either "spec" or "example", not both`)}
			}
			spec = true
			if k == keyExample && !slices.Contains(examples.Names(), v) {
				return &request.Error{Err: fmt.Errorf("example %q: no embedded example of that name%s (examples: %s)", v, similar.DidYouMean(v, examples.Names()), strings.Join(examples.Names(), ", "))}
			}
		case slices.Contains(ep.flags, k):
			if n, ok := ep.lists[k]; ok && strings.Count(v, ":")+1 > n {
				return &request.Error{Field: k, Err: fmt.Errorf("--%s %q: at most %d entries per request", k, v, n)}
			}
		default:
			return &request.Error{Err: fmt.Errorf("unknown key %q for %s; expected %s, %s or one of %s", k, ep.command, keySpec, keyExample, strings.Join(ep.flags, ", "))}
		}
	}
	return nil
}
