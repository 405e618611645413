package kernel

// MarshalText renders e in the spec's expression syntax (Expr.String),
// which UnmarshalText reads back to an equal expression: the form in
// which accesses travel between processes (encoding/json, encoding/gob).
func (e Expr) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText parses text as ParseExpr does into e.
func (e *Expr) UnmarshalText(text []byte) error {
	x, err := ParseExpr(string(text))
	if err != nil {
		return err
	}
	*e = x
	return nil
}
