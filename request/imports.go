package request

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/polyvol/polyvol/importer"
	"github.com/polyvol/polyvol/importer/jscop"
	"github.com/polyvol/polyvol/supervise"
)

// importJob is the worker job that imports a JSCoP or Kerncraft text with
// ISL (Import, ImportRegion).
const importJob = "request.import"

// importLimits bound one import in a worker. The corpus of imports
// (examples/polyhedral, testdata) imports in milliseconds; the limits
// leave two orders of magnitude to a large region and keep a hostile
// file's answer within a few seconds and a few hundred MB.
var importLimits = supervise.Limits{Memory: 256 << 20, Processor: 6 * time.Second, Wall: 8 * time.Second}

func init() { supervise.Register(importJob, serveImport) }

// importRequest is one import: the text, its format, and whether every
// statement of a region is imported.
type importRequest struct {
	Format  string           `json:"format"`
	Region  bool             `json:"region,omitempty"`
	Text    []byte           `json:"text"`
	File    string           `json:"file"`
	Options importer.Options `json:"options"`
}

// importAnswer is a worker's answer: the imported spec or region, without
// kernels, or the error, with the unbound names of an *UnboundError.
type importAnswer struct {
	Result  *importer.Result       `json:"result,omitempty"`
	Region  *importer.Region       `json:"region,omitempty"`
	Error   *importer.Error        `json:"error,omitempty"`
	Unbound *importer.UnboundError `json:"unbound,omitempty"`
	Message string                 `json:"message,omitempty"`
}

// ImportText imports text, a JSCoP (FormatJSCoP) or Kerncraft text
// (importKerncraft), named file, as one kernel. Where the program runs
// untrusted work in workers (supervise.EnableWorkers), ISL imports it in
// one under importLimits, so that no file can crash or exhaust the
// caller.
func ImportText(format string, text []byte, file string, opt importer.Options) (*importer.Result, error) {
	ans, err := runImport(importRequest{Format: format, Text: text, File: file, Options: opt})
	if err != nil {
		return nil, err
	}
	if err := reparse(ans.Result, file); err != nil {
		return nil, err
	}
	return ans.Result, nil
}

// ImportRegion imports every statement of a JSCoP's region, as
// jscop.ImportRegion does, in a worker as ImportText does.
func ImportRegion(text []byte, file string, opt importer.Options) (*importer.Region, error) {
	ans, err := runImport(importRequest{Format: FormatJSCoP, Region: true, Text: text, File: file, Options: opt})
	if err != nil {
		return nil, err
	}
	for _, s := range ans.Region.Statements {
		if err := reparse(s.Result, file); err != nil {
			return nil, err
		}
	}
	return ans.Region, nil
}

// runImport runs req in a worker, or in this process where workers are
// not enabled, and returns its answer or error.
func runImport(req importRequest) (*importAnswer, error) {
	if !supervise.WorkersEnabled() {
		ans := importHere(req)
		return ans, answerError(ans)
	}
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out, err := supervise.Run(context.Background(), importJob, importLimits, data, nil)
	if err != nil {
		var ce *supervise.CrashError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%s: libisl failed importing the file: %w", req.File, err)
		}
		return nil, fmt.Errorf("%s: importing the file with libisl: %w", req.File, err)
	}
	var ans importAnswer
	if err := json.Unmarshal(out, &ans); err != nil {
		return nil, fmt.Errorf("request: the import worker's answer: %w", err)
	}
	return &ans, answerError(&ans)
}

// reparse parses the kernel of res, an imported spec that came from a
// worker without it; nothing for a skipped statement's nil.
func reparse(res *importer.Result, file string) error {
	if res == nil || res.Kernel != nil {
		return nil
	}
	return res.Reparse(file)
}

// answerError returns the error an answer carries, or nil.
func answerError(ans *importAnswer) error {
	switch {
	case ans.Error != nil:
		if ans.Unbound != nil {
			ans.Error.Err = ans.Unbound
		}
		return ans.Error
	case ans.Unbound != nil:
		return ans.Unbound
	case ans.Message != "":
		return errors.New(ans.Message)
	}
	return nil
}

// importHere runs the import of req in this process.
func importHere(req importRequest) *importAnswer {
	var ans importAnswer
	var err error
	switch {
	case req.Region:
		ans.Region, err = jscop.ImportRegion(req.Text, req.File, req.Options)
	case req.Format == FormatJSCoP:
		ans.Result, err = jscop.Import(req.Text, req.File, req.Options)
	default:
		ans.Result, err = importKerncraft(req.Text, req.File, req.Options)
	}
	if err == nil {
		return &ans
	}
	ans = importAnswer{Message: err.Error()}
	var ie *importer.Error
	if errors.As(err, &ie) {
		ans.Error = ie
	}
	errors.As(err, &ans.Unbound)
	return &ans
}

// serveImport is the worker's side of importJob.
func serveImport(_ context.Context, request []byte, _ func([]byte)) ([]byte, error) {
	var req importRequest
	if err := json.Unmarshal(request, &req); err != nil {
		return nil, err
	}
	return json.Marshal(importHere(req))
}
