package kerncraft

// The reader of Kerncraft's kernel code: the C files of kerncraft -p ...
// KERNEL.c. The C is parsed by modernc.org/cc/v4 and read into the same
// Scop as a kernel description, with the same loops, arrays, accesses and
// flops as the description that Kerncraft itself derives from the code.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"modernc.org/cc/v4"

	"github.com/polyvol/polyvol/importer"
)

// MaxCodeBytes bounds the size of kernel code; a Kerncraft kernel is a few
// lines of C.
const MaxCodeBytes = 16 << 10

// maxBrackets bounds the opening brackets of kernel code, before and after
// macro expansion: the C parser descends once per nesting level, and a
// bound on the brackets bounds its depth.
const maxBrackets = 1000

// maxTokens bounds the tokens of kernel code after macro expansion
// (cc.Config.ExpansionLimit).
const maxTokens = 1 << 14

// The names of the sources around the kernel code: it is parsed as the body
// of a function, whose head and end these are.
const (
	headSource = "<polyvol kernel head>"
	endSource  = "<polyvol kernel end>"
)

// kernelHead opens the function around the kernel code (cc wants a
// definition of __predefined_declarator in every translation unit), and
// kernelEnd closes it. The declaration after the function ends the input
// with an identifier: the parser (modernc.org/cc/v4 up to v4.34.0 at least)
// loops forever when the qualifiers of a declarator's pointer, such as the
// * of "double *;", reach the end of the input, and an identifier ends
// them. Only an attribute among the qualifiers could take that identifier,
// and parse refuses attributes.
const (
	kernelHead = "int __predefined_declarator;\nvoid __polyvol_kernel(void) {\n"
	kernelEnd  = "\n}\nint __polyvol_kernel_end;\n"
)

// IsCode reports whether a file name is that of Kerncraft kernel code, a C
// file (FILE.c), rather than a kernel description.
func IsCode(name string) bool {
	return strings.EqualFold(filepath.Ext(name), ".c")
}

// ImportCode reads the Kerncraft kernel code data of file, a C loop nest, and
// imports it as a spec.
func ImportCode(data []byte, file string, opt importer.Options) (*importer.Result, error) {
	s, err := ReadCode(data, file, opt)
	if err != nil {
		return nil, err
	}
	return importer.Build(s, opt)
}

// ReadCode parses kernel code into a Scop, with its constants bound to
// opt.Params. The code is the C that Kerncraft analyses: declarations of
// the arrays and scalars (double a[M][N]; double s;), then one perfect nest
// of 1 to 3 for loops (for (int i = START; i < STOP; ++i), also i <= STOP,
// i++ and i += STEP) whose innermost body is assignments (=, +=, -=, *=,
// /=) to array elements or scalars of expressions of array elements,
// scalars, loop indices and numbers with +, -, * and /. Sizes, bounds and
// indices are integer expressions, affine in the loop indices, of the
// constants that -D binds: the names there that the code does not declare.
// As in Kerncraft, the data sources are what the statements read (with
// the element that a compound assignment updates), the data destinations
// what they write, each access once, and the flops the +, -, * and / of
// the right-hand sides, a compound assignment's operator and a unary minus
// each counting one per iteration. The Scop is the one that Read makes of
// the description Kerncraft derives from the code. All errors are
// *importer.Error.
func ReadCode(data []byte, file string, opt importer.Options) (*importer.Scop, error) {
	c := &codeReader{reader: reader{file: file, opt: opt, byName: map[string]int{}}, data: data}
	if len(data) > MaxCodeBytes {
		return nil, importer.Errorf(file, importer.Pos{}, "", "larger than %d KiB; kernel code is a small C loop nest", MaxCodeBytes>>10)
	}
	if err := c.checkBrackets(); err != nil {
		return nil, err
	}
	body, err := c.parse()
	if err != nil {
		return nil, err
	}
	if err := c.readBody(body); err != nil {
		return nil, err
	}
	return c.scop()
}

// codeReader reads one file of kernel code. It is a reader of kernel
// descriptions too: the loops, the constants and the accesses take the
// same way into the Scop.
type codeReader struct {
	reader
	data  []byte
	decls []*cDecl
	nest  []*cLoop
	stmts []*cAssign
}

// cDecl is a declaration of an array or a scalar.
type cDecl struct {
	name string
	typ  string
	dims []cc.ExpressionNode // sizes, outermost first; none for a scalar
	pos  importer.Pos
}

// cLoop is a loop of the nest, its bounds as written.
type cLoop struct {
	index       string
	start, stop cc.ExpressionNode
	inclusive   bool              // i <= stop
	step        cc.ExpressionNode // nil for ++i and i++
	pos         importer.Pos
}

// cAssign is an assignment of the innermost loop's body.
type cAssign struct {
	lhs      *ref
	compound bool   // +=, -=, *= or /=: lhs is read too
	reads    []*ref // the array elements and scalars of the right-hand side, in order
	flops    float64
}

// codeErrf returns an *importer.Error at the position of n.
func (c *codeReader) codeErrf(n cc.Node, where, format string, args ...any) *importer.Error {
	return importer.Errorf(c.file, c.pos(n), where, format, args...)
}

// pos returns the position of n in the file.
func (c *codeReader) pos(n cc.Node) importer.Pos {
	if n == nil {
		return importer.Pos{}
	}
	p := n.Position()
	switch p.Filename {
	case headSource:
		return importer.Pos{Line: 1, Col: 1}
	case endSource:
		return c.end()
	}
	return importer.Pos{Line: p.Line, Col: p.Column}
}

// end returns the position just after the file's last character.
func (c *codeReader) end() importer.Pos {
	text := strings.TrimRight(string(c.data), "\n")
	line := strings.Count(text, "\n") + 1
	last := text[strings.LastIndexByte(text, '\n')+1:]
	return importer.Pos{Line: line, Col: len(last) + 1}
}

// offsetPos returns the position of the byte at offset i of the file.
func (c *codeReader) offsetPos(i int) importer.Pos {
	before := string(c.data[:i])
	return importer.Pos{Line: strings.Count(before, "\n") + 1, Col: i - strings.LastIndexByte(before, '\n')}
}

// text is the source text of n for messages.
func text(n cc.Node) string {
	return importer.Excerpt(cc.NodeSource(n))
}

// checkBrackets bounds the nesting of the code before the parser descends
// into it: the opening brackets of the text, wherever they stand.
func (c *codeReader) checkBrackets() error {
	n, line, col := 0, 1, 1
	for _, b := range c.data {
		if b == '(' || b == '[' || b == '{' {
			if n++; n > maxBrackets {
				return importer.Errorf(c.file, importer.Pos{Line: line, Col: col}, "", "more than %d opening brackets; kernel code is a small C loop nest", maxBrackets)
			}
		}
		col++
		if b == '\n' {
			line, col = line+1, 1
		}
	}
	return nil
}

// emptyFS is a file system without files: kernel code includes no headers.
type emptyFS struct{}

// Open finds no file.
func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// expansion receives the code after macro expansion, for the checks before
// the parser runs: it counts the opening brackets and stops at maxBrackets
// or maxExpansion bytes.
type expansion struct {
	bytes.Buffer
	brackets int
}

// errExpansion stops macro expansion.
var errExpansion = errors.New("too many brackets or bytes")

// maxExpansion bounds the bytes of the code after macro expansion.
const maxExpansion = 1 << 20

// Write appends p and counts its opening brackets.
func (w *expansion) Write(p []byte) (int, error) {
	for _, b := range p {
		if b == '(' || b == '[' || b == '{' {
			w.brackets++
		}
	}
	if w.brackets > maxBrackets || w.Len()+len(p) > maxExpansion {
		return 0, errExpansion
	}
	return w.Buffer.Write(p)
}

// attributeWord matches GCC's __attribute__ keyword.
var attributeWord = regexp.MustCompile(`\b__attribute(__)?\b`)

// parse parses the code as the body of a function and returns the body's
// items.
func (c *codeReader) parse() (*cc.BlockItemList, error) {
	abi, err := cc.NewABI(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		abi, err = cc.NewABI("linux", "amd64")
	}
	if err != nil {
		return nil, importer.Errorf(c.file, importer.Pos{}, "", "C parser: %v", err)
	}
	// A configuration of the parser's own: no C compiler is asked for its
	// predefined macros and include paths, and no file is read.
	cfg := &cc.Config{ABI: abi, FS: emptyFS{}, FSOnly: true, ExpansionLimit: maxTokens}
	if err := cfg.ApplyOptions("-std=c99"); err != nil {
		return nil, importer.Errorf(c.file, importer.Pos{}, "", "C parser: %v", err)
	}
	// The code ends with two newlines: the scanner loops forever on a
	// string or character literal whose backslash joins the last line with
	// the end of the input ("\ at the end of a file).
	code := slices.Concat(c.data, []byte("\n\n"))
	sources := func() []cc.Source {
		return []cc.Source{{Name: headSource, Value: kernelHead}, {Name: c.file, Value: code}, {Name: endSource, Value: kernelEnd}}
	}
	var ast *cc.AST
	err = func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("the C parser failed (%v)", p)
			}
		}()
		// Macros may expand to deeper nests than the text shows. A
		// preprocessor error stops here: the preprocessor may have
		// stopped early, without the end of the function.
		w := &expansion{}
		if err := cc.Preprocess(cfg, sources(), w); errors.Is(err, errExpansion) || w.brackets > maxBrackets || w.Len() > maxExpansion {
			return importer.Errorf(c.file, importer.Pos{Line: 1, Col: 1}, "", "the macros expand to more than %d opening brackets or %d MiB; kernel code is a small C loop nest", maxBrackets, maxExpansion>>20)
		} else if err != nil {
			return err
		}
		// The parser's attributes take tokens that it needs to stop the
		// loop of a pointer's qualifiers (kernelEnd).
		if attributeWord.Match(w.Bytes()) {
			pos := importer.Pos{Line: 1, Col: 1}
			if loc := attributeWord.FindIndex(c.data); loc != nil {
				pos = c.offsetPos(loc[0])
			}
			return importer.Errorf(c.file, pos, "", "__attribute__ is not part of kernel code")
		}
		ast, err = cc.Parse(cfg, sources())
		return err
	}()
	var ie *importer.Error
	if errors.As(err, &ie) {
		return nil, ie
	}
	if err != nil {
		return nil, c.parseError(err)
	}
	// The translation unit is the declaration of __predefined_declarator,
	// the function and the declaration after it: anything else closed the
	// function early.
	var eds []*cc.ExternalDeclaration
	for tu := ast.TranslationUnit; tu != nil && len(eds) < 4; tu = tu.TranslationUnit {
		eds = append(eds, tu.ExternalDeclaration)
	}
	if len(eds) < 2 || eds[1] == nil || eds[1].Case != cc.ExternalDeclarationFuncDef || eds[1].FunctionDefinition == nil || eds[1].FunctionDefinition.CompoundStatement == nil {
		return nil, importer.Errorf(c.file, importer.Pos{Line: 1, Col: 1}, "", "expected kernel code: declarations and a loop nest")
	}
	body := eds[1].FunctionDefinition.CompoundStatement
	if rbrace := body.Token2; rbrace.Position().Filename != endSource || len(eds) != 3 {
		return nil, c.codeErrf(rbrace, "", "unmatched '}': kernel code is statements, not functions or blocks that close")
	}
	return body.BlockItemList, nil
}

// ccMessage matches a message of the C parser: "FILE:LINE:COL: MESSAGE",
// and ccPosition the part after a known FILE and its colon.
var (
	ccMessage  = regexp.MustCompile(`^(.*?):(\d+):(\d+): (.*)$`)
	ccPosition = regexp.MustCompile(`^(\d+):(\d+): (.*)$`)
)

// parseError turns an error of the C parser, one message per line, into an
// *importer.Error at the first message's position.
func (c *codeReader) parseError(err error) *importer.Error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	name, pos := "", importer.Pos{}
	for _, n := range []string{c.file, headSource, endSource} { // file names may hold colons
		if rest, ok := strings.CutPrefix(msg, n+":"); ok {
			if m := ccPosition.FindStringSubmatch(rest); m != nil {
				name, msg = n, m[3]
				pos.Line, _ = strconv.Atoi(m[1])
				pos.Col, _ = strconv.Atoi(m[2])
				break
			}
		}
	}
	if name == "" {
		if m := ccMessage.FindStringSubmatch(msg); m != nil {
			// A #line directive of the code named another file.
			name, msg = m[1], m[4]
			pos.Line, _ = strconv.Atoi(m[2])
			pos.Col, _ = strconv.Atoi(m[3])
		}
	}
	if (name == c.file || name == endSource) && strings.HasPrefix(msg, "unexpected '}'") && (strings.Contains(msg, "declarator") || strings.Contains(msg, "external declaration")) {
		// A '}' of the code closed the function and the parser reads
		// declarations outside it.
		if name == endSource {
			pos = c.end()
			if i := strings.LastIndexByte(string(c.data), '}'); i >= 0 {
				pos = c.offsetPos(i)
			}
		}
		return importer.Errorf(c.file, pos, "", "C syntax error: unmatched '}'")
	}
	switch name {
	case headSource:
		pos = importer.Pos{Line: 1, Col: 1}
	case endSource:
		pos = c.end()
		// The function's closing brace and the end of its source stand
		// for the end of the file.
		msg = strings.Replace(msg, "unexpected '}'", "unexpected end of file", 1)
		msg = strings.Replace(msg, "unexpected <EOF>", "unexpected end of file", 1)
	}
	if strings.Contains(msg, "Config.ExpansionLimit") {
		msg = fmt.Sprintf("more than %d tokens after macro expansion; kernel code is a small C loop nest", maxTokens)
	}
	if end := c.end(); pos.Line > end.Line || pos.Line == end.Line && pos.Col > end.Col {
		pos = end // in the newlines that parse adds
	}
	if pos.Line == 0 {
		pos = importer.Pos{Line: 1, Col: 1}
	}
	return importer.Errorf(c.file, pos, "", "C syntax error: %s", msg)
}

// items returns the items of a block, skipping those the function head
// adds (the declaration of __func__) and empty statements.
func (c *codeReader) items(l *cc.BlockItemList) []*cc.BlockItem {
	var out []*cc.BlockItem
	for ; l != nil; l = l.BlockItemList {
		it := l.BlockItem
		if it == nil || it.Position().Filename == headSource {
			continue
		}
		if it.Case == cc.BlockItemStmt && it.Statement != nil && it.Statement.Case == cc.StatementExpr &&
			it.Statement.ExpressionStatement != nil && it.Statement.ExpressionStatement.ExpressionList == nil {
			continue
		}
		out = append(out, it)
	}
	return out
}

// readBody reads the declarations and the loop nest.
func (c *codeReader) readBody(body *cc.BlockItemList) error {
	items := c.items(body)
	var loop *cc.IterationStatement
	for _, it := range items {
		switch {
		case loop != nil:
			return c.codeErrf(it, "", "%s after the loop nest; kernel code is declarations, then one loop nest", itemKind(it))
		case it.Case == cc.BlockItemDecl && it.Declaration != nil:
			if err := c.declaration(it.Declaration); err != nil {
				return err
			}
		case it.Case == cc.BlockItemStmt && it.Statement != nil && it.Statement.Case == cc.StatementIteration:
			loop = it.Statement.IterationStatement
		default:
			where := "before the loop nest"
			if !slices.ContainsFunc(items, func(it *cc.BlockItem) bool {
				return it.Case == cc.BlockItemStmt && it.Statement != nil && it.Statement.Case == cc.StatementIteration
			}) {
				where = "outside a loop nest"
			}
			return c.codeErrf(it, "", "%s %s; kernel code is declarations, then one loop nest", itemKind(it), where)
		}
	}
	if loop == nil {
		return importer.Errorf(c.file, c.end(), "", "no loop nest; kernel code is declarations, then one loop nest (for (int i = 0; i < N; ++i) ...)")
	}
	return c.loop(loop)
}

// itemKind names a block item for messages.
func itemKind(it *cc.BlockItem) string {
	switch {
	case it.Case == cc.BlockItemDecl:
		return "a declaration"
	case it.Case != cc.BlockItemStmt || it.Statement == nil:
		return "a function or label"
	}
	switch it.Statement.Case {
	case cc.StatementIteration:
		return "a loop"
	case cc.StatementExpr:
		return "a statement"
	case cc.StatementCompound:
		return "a block"
	case cc.StatementSelection:
		return "an if or switch statement"
	case cc.StatementJump:
		return "a jump statement"
	}
	return "a statement"
}

// typeWords returns the type of declaration specifiers as words ("double",
// "unsigned long"); qualifiers such as const and restrict are left out.
func (c *codeReader) typeWords(ds *cc.DeclarationSpecifiers) (string, error) {
	var words []string
	for ; ds != nil; ds = ds.DeclarationSpecifiers {
		switch ds.Case {
		case cc.DeclarationSpecifiersTypeQual:
		case cc.DeclarationSpecifiersTypeSpec:
			ts := ds.TypeSpecifier
			if ts == nil {
				continue
			}
			switch ts.Case {
			case cc.TypeSpecifierStructOrUnion, cc.TypeSpecifierEnum, cc.TypeSpecifierTypeName, cc.TypeSpecifierTypeofExpr, cc.TypeSpecifierTypeofType, cc.TypeSpecifierAtomic:
				return "", c.codeErrf(ts, "", "%s: expected a C type such as double or float", text(ts))
			}
			words = append(words, ts.Token.SrcStr())
		default:
			return "", c.codeErrf(ds, "", "%s: kernel code declares arrays and scalars of a C type such as double, without storage classes", text(ds))
		}
	}
	return strings.Join(words, " "), nil
}

// declaration reads the declaration of arrays and scalars.
func (c *codeReader) declaration(d *cc.Declaration) error {
	if d.Case != cc.DeclarationDecl || d.DeclarationSpecifiers == nil {
		return c.codeErrf(d, "", "expected a declaration of arrays or scalars, such as double a[M][N];")
	}
	typ, err := c.typeWords(d.DeclarationSpecifiers)
	if err != nil {
		return err
	}
	if d.InitDeclaratorList == nil {
		return c.codeErrf(d, "", "a declaration without a name; expected one such as double a[M][N];")
	}
	for l := d.InitDeclaratorList; l != nil; l = l.InitDeclaratorList {
		id := l.InitDeclarator
		if id == nil || id.Declarator == nil {
			continue
		}
		if id.Declarator.Pointer != nil {
			return c.codeErrf(id.Declarator, "", "%s: a pointer; declare an array with its sizes, such as double a[M][N]", text(id.Declarator))
		}
		decl := &cDecl{typ: typ}
		for dd := id.Declarator.DirectDeclarator; dd != nil; dd = dd.DirectDeclarator {
			switch dd.Case {
			case cc.DirectDeclaratorIdent:
				decl.name, decl.pos = dd.Token.SrcStr(), c.pos(dd.Token)
			case cc.DirectDeclaratorArr:
				if dd.AssignmentExpression == nil {
					return c.codeErrf(dd, "", "%s: an array size is missing", text(id.Declarator))
				}
				decl.dims = append(decl.dims, dd.AssignmentExpression)
			default:
				return c.codeErrf(dd, "", "%s: expected an array or a scalar, such as double a[M][N] or double s", text(id.Declarator))
			}
		}
		slices.Reverse(decl.dims) // the declarator nests the innermost size outermost
		if decl.name == "" {
			return c.codeErrf(id, "", "a declaration without a name")
		}
		if prev := c.decl(decl.name); prev != nil {
			return importer.Errorf(c.file, decl.pos, fmt.Sprintf("array %q", decl.name), "declared twice (first at line %d)", prev.pos.Line)
		}
		c.decls = append(c.decls, decl)
	}
	return nil
}

// decl returns the declaration of name, or nil.
func (c *codeReader) decl(name string) *cDecl {
	for _, d := range c.decls {
		if d.name == name {
			return d
		}
	}
	return nil
}

// loop reads a loop of the nest and what it holds.
func (c *codeReader) loop(it *cc.IterationStatement) error {
	if len(c.nest) == 3 {
		// A fourth loop: count the loops that the nest holds for the message.
		n := 4
		for s := it.Statement; s != nil && n < 100; n++ {
			inner := c.innerLoop(s)
			if inner == nil {
				break
			}
			s = inner.Statement
		}
		return c.codeErrf(it, "", "%s", tooManyLoops(n))
	}
	if it.Case != cc.IterationStatementForDecl {
		if it.Case == cc.IterationStatementFor {
			return c.codeErrf(it, "", "expected a loop that declares its index, such as for (int i = 0; i < N; ++i)")
		}
		return c.codeErrf(it, "", "expected a for loop, such as for (int i = 0; i < N; ++i); kernel code has no while loops")
	}
	l := &cLoop{pos: c.pos(it)}
	if err := c.loopIndex(it, l); err != nil {
		return err
	}
	where := "loop " + l.index
	if slices.ContainsFunc(c.nest, func(o *cLoop) bool { return o.index == l.index }) {
		return importer.Errorf(c.file, l.pos, where, "index %s used by two loops", l.index)
	}
	if d := c.decl(l.index); d != nil {
		return importer.Errorf(c.file, l.pos, where, "the index %s hides the variable declared at line %d", l.index, d.pos.Line)
	}
	if err := c.loopCondition(it, l, where); err != nil {
		return err
	}
	if err := c.loopStep(it, l, where); err != nil {
		return err
	}
	c.nest = append(c.nest, l)
	if it.Statement == nil {
		return c.codeErrf(it, where, "the loop has no body")
	}
	if inner := c.innerLoop(it.Statement); inner != nil {
		return c.loop(inner)
	}
	return c.body(it.Statement, where)
}

// innerLoop returns the loop that a loop's body is, alone in braces or not,
// or nil.
func (c *codeReader) innerLoop(s *cc.Statement) *cc.IterationStatement {
	for depth := 0; s != nil && depth < maxBrackets; depth++ {
		switch s.Case {
		case cc.StatementIteration:
			return s.IterationStatement
		case cc.StatementCompound:
			if s.CompoundStatement == nil {
				return nil
			}
			items := c.items(s.CompoundStatement.BlockItemList)
			if len(items) != 1 || items[0].Case != cc.BlockItemStmt {
				return nil
			}
			s = items[0].Statement
		default:
			return nil
		}
	}
	return nil
}

// loopIndex reads the declaration of a loop's index and its start.
func (c *codeReader) loopIndex(it *cc.IterationStatement, l *cLoop) error {
	d := it.Declaration
	bad := func() error {
		return c.codeErrf(it, "", "expected a loop that declares its index, such as for (int i = 0; i < N; ++i)")
	}
	if d == nil || d.Case != cc.DeclarationDecl || d.InitDeclaratorList == nil || d.InitDeclaratorList.InitDeclaratorList != nil {
		return bad()
	}
	id := d.InitDeclaratorList.InitDeclarator
	if id == nil || id.Declarator == nil || id.Declarator.Pointer != nil || id.Declarator.DirectDeclarator == nil || id.Declarator.DirectDeclarator.Case != cc.DirectDeclaratorIdent {
		return bad()
	}
	l.index = id.Declarator.DirectDeclarator.Token.SrcStr()
	typ, err := c.typeWords(d.DeclarationSpecifiers)
	if err != nil {
		return err
	}
	if _, fp, err := importer.ElementSize(typ); err != nil || fp != 0 {
		return c.codeErrf(d, "loop "+l.index, "the index has the type %q; expected an integer type such as int", typ)
	}
	if id.Case != cc.InitDeclaratorInit || id.Initializer == nil || id.Initializer.Case != cc.InitializerExpr || id.Initializer.AssignmentExpression == nil {
		return c.codeErrf(id, "loop "+l.index, "the index has no start; expected for (int %s = START; ...)", l.index)
	}
	l.start = id.Initializer.AssignmentExpression
	return nil
}

// loopCondition reads a loop's condition: index < stop or index <= stop.
func (c *codeReader) loopCondition(it *cc.IterationStatement, l *cLoop, where string) error {
	rel, ok := it.ExpressionList.(*cc.RelationalExpression)
	if !ok || rel == nil || (rel.Case != cc.RelationalExpressionLt && rel.Case != cc.RelationalExpressionLeq) || identName(rel.RelationalExpression) != l.index || rel.ShiftExpression == nil {
		n := cc.Node(it)
		if it.ExpressionList != nil {
			n = it.ExpressionList
		}
		return c.codeErrf(n, where, "expected the condition %s < STOP or %s <= STOP", l.index, l.index)
	}
	l.stop, l.inclusive = rel.ShiftExpression, rel.Case == cc.RelationalExpressionLeq
	return nil
}

// loopStep reads a loop's increment: ++index, index++ or index += step.
func (c *codeReader) loopStep(it *cc.IterationStatement, l *cLoop, where string) error {
	switch e := it.ExpressionList2.(type) {
	case *cc.UnaryExpression:
		if e != nil && e.Case == cc.UnaryExpressionInc && identName(e.UnaryExpression) == l.index {
			return nil
		}
		if e != nil && e.Case == cc.UnaryExpressionDec {
			return c.codeErrf(e, where, "the loop counts down; polyvol reads loops that count up (++%s, %s++ or %s += STEP)", l.index, l.index, l.index)
		}
	case *cc.PostfixExpression:
		if e != nil && e.Case == cc.PostfixExpressionInc && identName(e.PostfixExpression) == l.index {
			return nil
		}
		if e != nil && e.Case == cc.PostfixExpressionDec {
			return c.codeErrf(e, where, "the loop counts down; polyvol reads loops that count up (++%s, %s++ or %s += STEP)", l.index, l.index, l.index)
		}
	case *cc.AssignmentExpression:
		if e != nil && e.Case == cc.AssignmentExpressionAdd && identName(e.UnaryExpression) == l.index && e.AssignmentExpression != nil {
			l.step = e.AssignmentExpression
			return nil
		}
	}
	n := cc.Node(it)
	if it.ExpressionList2 != nil {
		n = it.ExpressionList2
	}
	return c.codeErrf(n, where, "expected the increment ++%s, %s++ or %s += STEP", l.index, l.index, l.index)
}

// identName returns the name of an identifier expression, or "".
func identName(e cc.ExpressionNode) string {
	if p, ok := e.(*cc.PrimaryExpression); ok && p != nil && p.Case == cc.PrimaryExpressionIdent {
		return p.Token.SrcStr()
	}
	return ""
}

// body reads the innermost loop's body: assignments.
func (c *codeReader) body(s *cc.Statement, where string) error {
	var stmts []*cc.Statement
	if s.Case == cc.StatementCompound && s.CompoundStatement != nil {
		for _, it := range c.items(s.CompoundStatement.BlockItemList) {
			if it.Case != cc.BlockItemStmt || it.Statement == nil {
				return c.codeErrf(it, where, "%s in the loop nest; the innermost loop holds assignments, and the declarations come before the loops", itemKind(it))
			}
			stmts = append(stmts, it.Statement)
		}
	} else if s.Case != cc.StatementExpr || s.ExpressionStatement == nil || s.ExpressionStatement.ExpressionList != nil {
		stmts = []*cc.Statement{s} // not an empty statement
	}
	for _, st := range stmts {
		if st.Case != cc.StatementExpr || st.ExpressionStatement == nil || st.ExpressionStatement.ExpressionList == nil {
			return c.codeErrf(st, where, "%s in the loop body; polyvol reads a perfect loop nest: each loop holds one loop, the innermost one assignments", itemKind(&cc.BlockItem{Case: cc.BlockItemStmt, Statement: st}))
		}
		a, ok := st.ExpressionStatement.ExpressionList.(*cc.AssignmentExpression)
		if !ok || a == nil || a.UnaryExpression == nil || a.AssignmentExpression == nil {
			return c.codeErrf(st, where, "%s: expected an assignment, such as a[i] = b[i] + c[i];", text(st.ExpressionStatement.ExpressionList))
		}
		compound, ok := compoundOps[a.Case]
		if !ok {
			return c.codeErrf(a, where, "%s: expected an assignment with =, +=, -=, *= or /=", text(a))
		}
		if inner, ok := a.AssignmentExpression.(*cc.AssignmentExpression); ok && inner != nil && inner.Case != cc.AssignmentExpressionCond {
			return c.codeErrf(inner, where, "%s: one assignment per statement", text(a))
		}
		lhs, err := c.reference(a.UnaryExpression)
		if err != nil {
			return err
		}
		if lhs == nil {
			if name := identName(a.UnaryExpression); name != "" {
				return c.codeErrf(a.UnaryExpression, where, "%s is not an array or scalar of the kernel; declare it before the loops, such as double %s;", name, name)
			}
			return c.codeErrf(a.UnaryExpression, where, "%s: expected an array element or a scalar to assign to", text(a.UnaryExpression))
		}
		st := &cAssign{lhs: lhs, compound: compound}
		if st.flops, err = c.sources(a.AssignmentExpression, 0, func(r *ref) { st.reads = append(st.reads, r) }); err != nil {
			return err
		}
		if compound {
			st.flops++ // Kerncraft counts the operator of +=
		}
		c.stmts = append(c.stmts, st)
	}
	if len(c.stmts) == 0 {
		return c.codeErrf(s, where, "the innermost loop assigns nothing")
	}
	return nil
}

// compoundOps are the assignments kernel code has, true for a compound
// assignment.
var compoundOps = map[cc.AssignmentExpressionCase]bool{
	cc.AssignmentExpressionAssign: false,
	cc.AssignmentExpressionAdd:    true,
	cc.AssignmentExpressionSub:    true,
	cc.AssignmentExpressionMul:    true,
	cc.AssignmentExpressionDiv:    true,
}

// ref is an array element or a scalar of a statement.
type ref struct {
	decl *cDecl
	subs []cc.ExpressionNode // outermost first
	node cc.ExpressionNode
}

// reference reads an array element (a[j][i]) or a scalar (s), or returns
// nil for an expression that is neither.
func (c *codeReader) reference(e cc.ExpressionNode) (*ref, error) {
	var subs []cc.ExpressionNode
	x := e
	for {
		p, ok := x.(*cc.PostfixExpression)
		if !ok || p == nil || p.Case != cc.PostfixExpressionIndex {
			break
		}
		if p.ExpressionList == nil {
			return nil, c.codeErrf(p, "", "%s: an index is missing", text(e))
		}
		if _, comma := p.ExpressionList.(*cc.ExpressionList); comma {
			return nil, c.codeErrf(p.ExpressionList, "", "%s: a comma in an index", text(e))
		}
		subs = append(subs, p.ExpressionList)
		x = p.PostfixExpression
	}
	name := identName(x)
	if name == "" {
		if len(subs) > 0 {
			return nil, c.codeErrf(e, "", "%s: expected an array name before the index", text(e))
		}
		return nil, nil
	}
	slices.Reverse(subs)
	d := c.decl(name)
	if d == nil {
		if len(subs) > 0 {
			return nil, c.codeErrf(x, "", "%s: array %s is not declared; declare it before the loops, such as double %s[N];", text(e), name, name)
		}
		return nil, nil // a loop index or a constant
	}
	if len(subs) != len(d.dims) {
		what := fmt.Sprintf("array %s has %d dimensions", name, len(d.dims))
		if len(d.dims) == 0 {
			what = fmt.Sprintf("%s is a scalar", name)
		}
		return nil, c.codeErrf(e, "", "%s: wrong arity: %d indices, but %s", text(e), len(subs), what)
	}
	return &ref{decl: d, subs: subs, node: e}, nil
}

// affineText renders an integer expression in the notation of
// importer.ParseAffine, bracketing every operation, so that the loops, sizes
// and indices of code and of descriptions are read alike. Names are left
// to the caller's resolver.
func (c *codeReader) affineText(e cc.ExpressionNode, depth int) (string, error) {
	if depth > maxBrackets {
		return "", c.codeErrf(e, "", "expression nested too deeply")
	}
	if inner, ok := wrapped(e); ok {
		return c.affineText(inner, depth+1)
	}
	if l, r, op, ok := binary(e); ok {
		a, err := c.affineText(l, depth+1)
		if err != nil {
			return "", err
		}
		b, err := c.affineText(r, depth+1)
		if err != nil {
			return "", err
		}
		return "(" + a + " " + op + " " + b + ")", nil
	}
	switch x := e.(type) {
	case *cc.PrimaryExpression:
		if x == nil {
			break
		}
		switch x.Case {
		case cc.PrimaryExpressionIdent:
			name := x.Token.SrcStr()
			if d := c.decl(name); d != nil {
				return "", c.codeErrf(x, "", "%s is a variable of the kernel; sizes, bounds and indices are affine expressions of the loop indices and of constants", name)
			}
			return name, nil
		case cc.PrimaryExpressionInt:
			v, err := intLiteral(x.Token.SrcStr())
			if err != nil {
				return "", c.codeErrf(x, "", "%s: %v", x.Token.SrcStr(), err)
			}
			return strconv.FormatInt(v, 10), nil
		case cc.PrimaryExpressionFloat:
			return "", c.codeErrf(x, "", "%s: expected an integer, not a floating-point number", x.Token.SrcStr())
		}
	case *cc.UnaryExpression:
		if x != nil && (x.Case == cc.UnaryExpressionMinus || x.Case == cc.UnaryExpressionPlus) {
			a, err := c.affineText(x.CastExpression, depth+1)
			if err != nil {
				return "", err
			}
			return "(" + x.Token.SrcStr() + a + ")", nil
		}
	}
	return "", c.unexpected(e, "an integer expression of + - * / % and brackets")
}

// wrapped returns the one operand of an expression that only wraps it: a
// bracket, or a level of the C grammar without an operator of its own.
func wrapped(e cc.ExpressionNode) (cc.ExpressionNode, bool) {
	switch x := e.(type) {
	case *cc.PrimaryExpression:
		if x != nil && x.Case == cc.PrimaryExpressionExpr {
			if _, comma := x.ExpressionList.(*cc.ExpressionList); !comma && x.ExpressionList != nil {
				return x.ExpressionList, true
			}
		}
	case *cc.AdditiveExpression:
		if x != nil && x.Case == cc.AdditiveExpressionMul {
			return x.MultiplicativeExpression, true
		}
	case *cc.MultiplicativeExpression:
		if x != nil && x.Case == cc.MultiplicativeExpressionCast {
			return x.CastExpression, true
		}
	case *cc.UnaryExpression:
		if x != nil && x.Case == cc.UnaryExpressionPostfix {
			return x.PostfixExpression, true
		}
	case *cc.CastExpression:
		if x != nil && x.Case == cc.CastExpressionUnary {
			return x.UnaryExpression, true
		}
	case *cc.PostfixExpression:
		if x != nil && x.Case == cc.PostfixExpressionPrimary {
			return x.PrimaryExpression, true
		}
	}
	return nil, false
}

// binary returns the operands and the operator (+ - * / %) of a binary
// arithmetic expression.
func binary(e cc.ExpressionNode) (l, r cc.ExpressionNode, op string, ok bool) {
	switch x := e.(type) {
	case *cc.AdditiveExpression:
		if x == nil {
			break
		}
		switch x.Case {
		case cc.AdditiveExpressionAdd:
			return x.AdditiveExpression, x.MultiplicativeExpression, "+", true
		case cc.AdditiveExpressionSub:
			return x.AdditiveExpression, x.MultiplicativeExpression, "-", true
		}
	case *cc.MultiplicativeExpression:
		if x == nil {
			break
		}
		switch x.Case {
		case cc.MultiplicativeExpressionMul:
			return x.MultiplicativeExpression, x.CastExpression, "*", true
		case cc.MultiplicativeExpressionDiv:
			return x.MultiplicativeExpression, x.CastExpression, "/", true
		case cc.MultiplicativeExpressionMod:
			return x.MultiplicativeExpression, x.CastExpression, "%", true
		}
	}
	return nil, nil, "", false
}

// unexpected reports an expression that is missing, or that is not the
// expected kind of expression.
func (c *codeReader) unexpected(e cc.ExpressionNode, expected string) error {
	if e == nil {
		return importer.Errorf(c.file, c.end(), "", "an expression is missing")
	}
	return c.codeErrf(e, "", "%s: expected %s", text(e), expected)
}

// intLiteral returns the value of a C integer constant (decimal, octal,
// hexadecimal or binary, with a suffix such as UL).
func intLiteral(s string) (int64, error) {
	t := strings.TrimRight(s, "uUlLzZ")
	if strings.ContainsAny(t, "_'") {
		return 0, fmt.Errorf("expected an integer constant")
	}
	if len(t) > 1 && t[0] == '0' && t[1] >= '0' && t[1] <= '9' {
		t = "0o" + t[1:] // C's octal
	}
	v, err := strconv.ParseInt(t, 0, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("integer does not fit in 64 bits")
		}
		return 0, fmt.Errorf("expected an integer constant")
	}
	return v, nil
}

// exprError turns an error of evaluating expression e into an
// *importer.Error at e: what is evaluated, e's text and the cause.
func (c *codeReader) exprError(e cc.ExpressionNode, where, what string, err error) error {
	var ie *importer.Error
	if errors.As(err, &ie) {
		if ie.Where == "" {
			ie.Where = where
		}
		return ie
	}
	var ae *importer.AffineError
	msg := withoutColumn(err).Error()
	if errors.As(err, &ae) && !errors.As(err, new(*importer.UnboundError)) {
		msg = ae.Msg
	}
	out := c.codeErrf(e, where, "%s %q: %s", what, text(e), msg)
	out.Err = err
	return out
}

// constantOf evaluates an integer expression of the constants.
func (c *codeReader) constantOf(e cc.ExpressionNode, where, what string) (int64, error) {
	src, err := c.affineText(e, 0)
	if err == nil {
		var v int64
		if v, err = c.constValue(src); err == nil {
			return v, nil
		}
	}
	return 0, c.exprError(e, where, what, err)
}

// constantsOf appends to uses the constants that e uses, each with its
// position: the names that are not loop indices or declared.
func (c *codeReader) constantsOf(e cc.Node, uses *[]importer.Use) {
	for _, t := range cc.NodeTokens(e) {
		if t.Ch != rune(cc.IDENTIFIER) {
			continue
		}
		name := t.SrcStr()
		if _, isLoop := c.byName[name]; isLoop || c.decl(name) != nil {
			continue
		}
		*uses = append(*uses, importer.Use{Name: name, Pos: c.pos(t)})
	}
}

// constants returns the constants that the code uses, each with its first
// use, in the order of the text.
func (c *codeReader) constants() []importer.Use {
	var uses []importer.Use
	for _, d := range c.decls {
		for _, e := range d.dims {
			c.constantsOf(e, &uses)
		}
	}
	for _, l := range c.nest {
		for _, e := range []cc.ExpressionNode{l.start, l.stop, l.step} {
			if e != nil {
				c.constantsOf(e, &uses)
			}
		}
	}
	for _, s := range c.stmts {
		for _, r := range append([]*ref{s.lhs}, s.reads...) {
			for _, e := range r.subs {
				c.constantsOf(e, &uses)
			}
		}
	}
	slices.SortStableFunc(uses, func(a, b importer.Use) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
	var out []importer.Use
	for _, u := range uses {
		if !slices.ContainsFunc(out, func(o importer.Use) bool { return o.Name == u.Name }) {
			out = append(out, u)
		}
	}
	return out
}

// scop evaluates what readBody read and assembles the Scop.
func (c *codeReader) scop() (*importer.Scop, error) {
	for _, l := range c.nest {
		c.byName[l.index] = -1 // known as loop indices before the bounds are read
	}
	var err error
	if c.unbound, err = importer.UnboundConstants(c.file, c.opt.Params, c.constants(), "the kernel code"); err != nil {
		return nil, err
	}
	s := c.newScop()
	for i, d := range c.decls {
		where := fmt.Sprintf("array %q", d.name)
		a, err := c.newArray(d.name, d.typ, i, d.pos)
		if err != nil {
			return nil, importer.Errorf(c.file, d.pos, where, "bad type: %v", err)
		}
		for j, e := range d.dims {
			v, err := c.constantOf(e, where, fmt.Sprintf("dimension[%d]", j))
			if err != nil {
				return nil, err
			}
			if v < 1 {
				return nil, c.codeErrf(e, where, "dimension[%d] = %d: expected a positive size", j, v)
			}
			a.Sizes = append(a.Sizes, v)
		}
		s.Arrays = append(s.Arrays, a)
	}
	for _, cl := range c.nest {
		where := "loop " + cl.index
		l := loop{index: cl.index, islName: cl.index, step: 1, line: cl.pos.Line, col: cl.pos.Col}
		var err error
		if l.start, err = c.constantOf(cl.start, where, "start"); err != nil {
			return nil, err
		}
		if l.stop, err = c.constantOf(cl.stop, where, "stop"); err != nil {
			return nil, err
		}
		if cl.inclusive {
			if l.stop == 1<<63-1 {
				return nil, c.codeErrf(cl.stop, where, "stop %d: the loop does not end", l.stop)
			}
			l.stop++
		}
		if cl.step != nil {
			if l.step, err = c.constantOf(cl.step, where, "step"); err != nil {
				return nil, err
			}
		}
		if key, msg := c.addLoop(l); msg != "" {
			n := cl.stop
			if key == "step" && cl.step != nil {
				n = cl.step
			}
			return nil, c.codeErrf(n, where, "%s", msg)
		}
	}
	st := c.statement()
	accs, err := c.accesses(s.Arrays)
	if err != nil {
		return nil, err
	}
	st.Accesses = accs
	s.Statement = st
	for _, a := range c.stmts {
		s.Flops += a.flops
	}
	s.Description = fmt.Sprintf("imported from the Kerncraft kernel code %s", filepath.Base(c.file))
	return s, nil
}

// accesses returns the data sources and destinations of the statements,
// in the order of a kernel description: the reads, array by array in the
// order of their first read, then the writes; each access once.
func (c *codeReader) accesses(arrays []*importer.Array) ([]importer.Access, error) {
	type found struct {
		r     *ref
		texts []string
	}
	var reads, writes []found
	add := func(list *[]found, kind string, r *ref) error {
		if len(r.subs) == 0 {
			return nil // a scalar, kept in a register
		}
		f := found{r: r}
		for j, e := range r.subs {
			src, err := c.affineText(e, 0)
			var t string
			if err == nil {
				t, err = c.index(src)
			}
			if err != nil {
				return c.exprError(e, kind+" "+text(r.node), fmt.Sprintf("index %d", j), err)
			}
			f.texts = append(f.texts, t)
		}
		if !slices.ContainsFunc(*list, func(o found) bool { return o.r.decl == r.decl && slices.Equal(o.texts, f.texts) }) {
			*list = append(*list, f)
		}
		return nil
	}
	for _, s := range c.stmts {
		if s.compound {
			if err := add(&reads, "data source", s.lhs); err != nil {
				return nil, err
			}
		}
		for _, r := range s.reads {
			if err := add(&reads, "data source", r); err != nil {
				return nil, err
			}
		}
		if err := add(&writes, "data destination", s.lhs); err != nil {
			return nil, err
		}
	}
	var out []importer.Access
	for _, list := range []struct {
		found []found
		write bool
		kind  string
	}{{reads, false, "data source"}, {writes, true, "data destination"}} {
		// Array by array, in the order of the first access to each.
		var order []*cDecl
		for _, f := range list.found {
			if !slices.Contains(order, f.r.decl) {
				order = append(order, f.r.decl)
			}
		}
		for _, d := range order {
			arr := arrays[slices.Index(c.decls, d)]
			for _, f := range list.found {
				if f.r.decl == d {
					out = append(out, c.access(list.write, arr, f.texts, c.pos(f.r.node), list.kind+" "+text(f.r.node)))
				}
			}
		}
	}
	return out, nil
}

// sources walks the right-hand side of an assignment: it calls read for
// every array element and scalar it reads and returns its flops, the
// operators +, -, * and / and unary minus, as Kerncraft counts them.
func (c *codeReader) sources(e cc.ExpressionNode, depth int, read func(*ref)) (float64, error) {
	if depth > maxBrackets {
		return 0, c.codeErrf(e, "", "expression nested too deeply")
	}
	if r, err := c.reference(e); err != nil || r != nil {
		if err != nil {
			return 0, err
		}
		read(r)
		return 0, nil
	}
	if inner, ok := wrapped(e); ok {
		return c.sources(inner, depth+1, read)
	}
	if l, r, op, ok := binary(e); ok && op != "%" {
		a, err := c.sources(l, depth+1, read)
		if err != nil {
			return 0, err
		}
		b, err := c.sources(r, depth+1, read)
		return a + b + 1, err
	}
	switch x := e.(type) {
	case *cc.PrimaryExpression:
		if x == nil {
			break
		}
		switch x.Case {
		case cc.PrimaryExpressionIdent:
			name := x.Token.SrcStr()
			if !slices.ContainsFunc(c.nest, func(l *cLoop) bool { return l.index == name }) {
				return 0, c.codeErrf(x, "", "%s is not declared; declare the scalars and arrays that the statements read before the loops, such as double %s;", name, name)
			}
			return 0, nil // a loop index, a value in a register
		case cc.PrimaryExpressionInt, cc.PrimaryExpressionFloat:
			return 0, nil
		}
	case *cc.UnaryExpression:
		if x != nil && (x.Case == cc.UnaryExpressionMinus || x.Case == cc.UnaryExpressionPlus) {
			n, err := c.sources(x.CastExpression, depth+1, read)
			if x.Case == cc.UnaryExpressionMinus {
				n++
			}
			return n, err
		}
	case *cc.PostfixExpression:
		if x != nil && x.Case == cc.PostfixExpressionCall {
			return 0, c.codeErrf(x, "", "%s: a function call; kernel code computes with + - * / only", text(x))
		}
	}
	return 0, c.unexpected(e, "an expression of array elements, scalars and numbers with + - * / and brackets")
}
