package sets

import "fmt"

// Method selects the estimation method of spec/metrics.md: Reference
// reproduces the reference implementation's sampling and wave-placement
// rules; Exact replaces each approximation of spec §8 by its exact definition.
type Method int

// The estimation methods.
const (
	Exact     Method = iota // the exact definitions (default)
	Reference               // the reference implementation's rules
)

// String returns the method's name as used on the command line.
func (m Method) String() string {
	switch m {
	case Exact:
		return "exact"
	case Reference:
		return "reference"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod parses "exact" or "reference".
func ParseMethod(s string) (Method, error) {
	switch s {
	case "exact", "":
		return Exact, nil
	case "reference":
		return Reference, nil
	}
	return 0, fmt.Errorf("unknown method %q (want exact or reference)", s)
}
