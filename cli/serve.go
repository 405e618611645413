package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"slices"
	"strconv"
	"strings"
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

// tokenEnv is the environment variable that --token also reads.
const tokenEnv = "POLYVOL_API_TOKEN"

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:  "serve",
			Usage: "serve a web calculator and a JSON HTTP API on a local address",
			UsageText: `polyvol serve [--listen HOST:PORT] [--token TOKEN] [--allow-remote] [--allow-host NAME ...]
   polyvol serve --stdio

Starts an HTTP server that answers the questions of predict, explore,
layercond, simulate and devices as JSON (the same JSON as --format json, see
docs/api.md), and a web page at / that calls this API: pick an example or
paste a spec, choose the device and the launch, and read the prediction,
the ranking of block sizes and the layer-condition plot.

The server listens on the loopback address 127.0.0.1:8080 unless --listen
says otherwise, prints its URL and its API token, and runs until SIGINT or
SIGTERM, letting running requests finish for 10 s. The POST requests of the
API must send the token in the header X-Polyvol-Token and the header
Content-Type: application/json; the page does so by itself. The token is
random unless --token (or $POLYVOL_API_TOKEN) sets it. The server answers
only requests whose Host is a loopback name (localhost, 127.0.0.1, [::1]) or
a name of --allow-host, and refuses browsers' requests from other sites.

A --listen address that is not loopback (0.0.0.0:8080, :8080, a LAN
address) makes the API reachable from the network, with the token as its
only protection, sent unencrypted: it needs --allow-remote, and the names
clients use for the machine must be given with --allow-host (the listen
address itself, and the machine's addresses for 0.0.0.0, are accepted).
Port 0 picks a free port.

--stdio answers the same requests as JSON lines on standard input and
output instead, in one long-lived process (no address, no token): each line
is a request body of the API plus "endpoint" (predict, simulate, layercond
or explore) and an optional "id"; each answer is one line with that id and
"body" (the endpoint's JSON) and "notes", or the API's error body with its
"status". No token is needed: the input is the caller's own. Answers come as they finish; a bad line is answered with an
error and the next one read. The end of the input ends the command (exit
0) once the running requests are answered.

Examples:
   polyvol serve
   polyvol serve --listen 127.0.0.1:9000
   polyvol serve --listen 0.0.0.0:8080 --allow-remote \
       --allow-host gpu-box.lan
   export POLYVOL_API_TOKEN=$(openssl rand -hex 16); polyvol serve &
   curl -s 127.0.0.1:8080/api/predict -H 'Content-Type: application/json' \
        -H "X-Polyvol-Token: $POLYVOL_API_TOKEN" -d '{"example": "star3d-r4", "block": "256,1,2"}'
   echo '{"id": 1, "endpoint": "predict", "example": "star3d-r4", "block": "256,1,2"}' | polyvol serve --stdio`,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "listen", Value: defaultListen, Usage: "`HOST:PORT` to listen on; loopback by default"},
				&ucli.StringFlag{Name: "token", EnvVars: []string{tokenEnv}, Usage: "the API `TOKEN` (16 to 128 letters, digits or -._~); random by default"},
				&ucli.BoolFlag{Name: "allow-remote", Usage: "allow a --listen address that is not loopback"},
				&ucli.StringSliceFlag{Name: "allow-host", Usage: "also accept the Host `NAME` (the machine's name on the network); repeatable"},
				&ucli.BoolFlag{Name: "stdio", Usage: "answer JSON request lines on standard input and output instead of listening"},
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
	if c.Bool("stdio") {
		return runServeLines(c)
	}
	token := c.String("token")
	if token != "" {
		if err := serve.CheckToken(token); err != nil {
			return flagErrorf("token", "--token: %v", err)
		}
	}
	hosts := c.StringSlice("allow-host")
	for _, h := range hosts {
		if h == "" || strings.ContainsAny(h, "/ \t@") {
			return flagErrorf("allow-host", "--allow-host %q: expected a host name or address", h)
		}
	}
	listen := c.String("listen")
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return flagErrorf("listen", "--listen %s: %v", listen, err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	remote := !addr.IP.IsLoopback()
	if remote && !c.Bool("allow-remote") {
		ln.Close()
		return flagErrorf("listen", "--listen %s is not a loopback address and would make the API reachable from the network; add --allow-remote to serve there on purpose", listen)
	}
	ips := servedIPs(addr.IP)
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" && net.ParseIP(strings.Trim(host, "[]")) == nil {
		hosts = append(hosts, host) // the name the user listens on
	}
	for _, ip := range ips {
		hosts = append(hosts, ip.String())
	}
	srv := serve.New(serve.Config{Token: token, Hosts: hosts})
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	urls := make([]string, len(ips))
	for i, ip := range ips {
		urls[i] = fmt.Sprintf("http://%s/", net.JoinHostPort(ip.String(), strconv.Itoa(addr.Port)))
	}
	if remote {
		fmt.Fprintf(c.App.ErrWriter, "polyvol: warning: the API is reachable from the network on %s; its only protection is the API token, which plain HTTP sends unencrypted\n", addr)
	}
	fmt.Fprintf(c.App.Writer, "polyvol: serving on %s (API token: %s; Ctrl-C stops)\n", strings.Join(urls, " "), srv.Token())
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	stop() // a second signal ends the process at once
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

// runServeLines is the action of serve --stdio: it answers the request
// lines of standard input on standard output until the input ends, or
// SIGINT or SIGTERM cuts the running requests.
func runServeLines(c *ucli.Context) error {
	for _, name := range []string{"listen", "allow-remote", "allow-host"} { // --token may come from the environment
		if c.IsSet(name) {
			return flagErrorf(name, "--%s does not apply to --stdio, which listens on no address", name)
		}
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := serve.New(serve.Config{}).ServeLines(ctx, c.App.Reader, c.App.Writer); err != nil {
		return fmt.Errorf("serve --stdio: %w", err)
	}
	return nil
}

// servedIPs returns the addresses a server bound to ip answers on: ip
// itself, or for an unspecified address (0.0.0.0, ::) the addresses of the
// machine's interfaces, loopback first, without link-local ones, which need
// a zone in a URL.
func servedIPs(ip net.IP) []net.IP {
	if !ip.IsUnspecified() {
		return []net.IP{ip}
	}
	addrs, err := net.InterfaceAddrs()
	var ips []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLinkLocalUnicast() && !n.IP.IsUnspecified() {
			ips = append(ips, n.IP)
		}
	}
	if err != nil || len(ips) == 0 {
		return []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	slices.SortStableFunc(ips, func(a, b net.IP) int {
		switch {
		case a.IsLoopback() == b.IsLoopback():
			return 0
		case a.IsLoopback():
			return -1
		}
		return 1
	})
	return ips
}

// setupMu serializes the setup of command lines that run at once in one
// process (Run is safe for concurrent use): urfave/cli's parsing writes
// package variables shared by every App (its help command and help flag)
// and the flags polyvol shares between commands. The actions, where the
// work is, run concurrently.
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
