package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/polyvol/polyvol/serve"
	ucli "github.com/urfave/cli/v2"
)

// defaultListen is the address polyvol serve listens on without --listen.
const defaultListen = "127.0.0.1:8080"

// shutdownGrace is how long polyvol serve lets running requests finish
// after SIGINT or SIGTERM.
const shutdownGrace = 10 * time.Second

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:  "serve",
			Usage: "serve a web calculator and a JSON HTTP API on a local address",
			UsageText: `polyvol serve [--listen HOST:PORT]

Starts an HTTP server that answers the questions of predict, explore,
layercond, simulate and devices as JSON (the same JSON as --format json, see
docs/api.md), and a web page at / that calls this API: pick an example or
paste a spec, choose the device and the launch, and read the prediction,
the ranking of block sizes and the layer-condition plot.

The server listens on the loopback address 127.0.0.1:8080 unless --listen
says otherwise, prints its URL, and runs until SIGINT or SIGTERM, letting
running requests finish. On a loopback address it answers only requests
whose Host header is a loopback name (localhost, 127.0.0.1, [::1]), which
keeps web pages of other sites out; a non-loopback --listen address (e.g.
0.0.0.0:8080) serves every name, on purpose. Port 0 picks a free port.

Examples:
   polyvol serve
   polyvol serve --listen 127.0.0.1:9000
   curl -s localhost:8080/api/predict -d '{"example": "star3d-r4", "block": "256,1,2"}'`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "listen", Value: defaultListen, Usage: "`HOST:PORT` to listen on; loopback by default"},
			},
			Action: runServe,
		}
	})
}

// runServe is the action of the serve command.
func runServe(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("serve takes no arguments, got %d", c.NArg())
	}
	ln, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return usageErrorf("--listen %s: %v", c.String("listen"), err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	srv := &http.Server{
		Handler:           serve.New(serve.Config{Run: RunForServer, AnyHost: !addr.IP.IsLoopback()}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(c.App.Writer, "polyvol: serving on %s (Ctrl-C stops)\n", serverURL(addr))
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(c.App.ErrWriter, "polyvol: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serverURL is the URL a browser opens for the listening address: localhost
// stands for a loopback address, and an unspecified one (0.0.0.0, ::) too,
// since the machine itself reaches it there.
func serverURL(addr *net.TCPAddr) string {
	host := addr.IP.String()
	if addr.IP.IsLoopback() || addr.IP.IsUnspecified() {
		host = "localhost"
	}
	return fmt.Sprintf("http://%s/", net.JoinHostPort(host, fmt.Sprint(addr.Port)))
}

// RunForServer is the serve.Runner of polyvol serve: it runs one polyvol
// command line in-process and returns its error with the message Run prints
// (errorLine), a user error as *serve.UserError.
func RunForServer(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := execute(append([]string{"polyvol"}, args...), stdin, stdout, stderr)
	switch {
	case err == nil:
		return nil
	case isUsageError(err):
		return &serve.UserError{Err: printedError{err}}
	}
	return printedError{err}
}

// printedError is an error with the message Run prints for it.
type printedError struct{ err error }

func (e printedError) Error() string { return errorLine(e.err) }
func (e printedError) Unwrap() error { return e.err }

// setupMu serializes the setup of command lines that run at once in one
// process, as polyvol serve runs them: urfave/cli's parsing writes package
// variables shared by every App (its help command and help flag) and the
// flags polyvol shares between commands. The actions, where the work is,
// run concurrently.
var setupMu sync.Mutex

// lockSetup locks setupMu until one of app's command actions starts, and
// returns the function that unlocks it then or when the run ends before any
// action, whichever comes first.
func lockSetup(app *ucli.App) (unlock func()) {
	setupMu.Lock()
	var once sync.Once
	unlock = func() { once.Do(setupMu.Unlock) }
	var wrap func(cmds []*ucli.Command)
	wrap = func(cmds []*ucli.Command) {
		for _, c := range cmds {
			if action := c.Action; action != nil {
				c.Action = func(ctx *ucli.Context) error {
					unlock()
					return action(ctx)
				}
			}
			wrap(c.Subcommands)
		}
	}
	wrap(app.Commands)
	return unlock
}
