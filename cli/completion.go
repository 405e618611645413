package cli

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/sim"
	ucli "github.com/urfave/cli/v2"
)

// completionMarker is the last argument with which the completion scripts
// call polyvol: the words before it are the command line typed so far, the
// last of them the word being completed (possibly empty). RunWithInput
// answers such a call with complete, one candidate per line.
const completionMarker = "--generate-bash-completion"

// completionScripts are the shell scripts printed by the completion command.
// They pass the words typed so far and the current word to polyvol itself
// and let the shell filter the candidates; an empty answer falls back to
// file name completion.
var completionScripts = map[string]string{
	"bash": `# bash completion for polyvol; load with: source <(polyvol completion bash)
_polyvol_complete() {
  local cur opts
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "${cur}" ` + completionMarker + ` 2>/dev/null)
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _polyvol_complete polyvol
`,
	"zsh": `#compdef polyvol
# zsh completion for polyvol; load with: source <(polyvol completion zsh)
_polyvol() {
  local -a opts
  opts=("${(@f)$(${words[1,CURRENT-1]} "${words[CURRENT]}" ` + completionMarker + ` 2>/dev/null)}")
  if [[ "${opts[1]}" != "" ]]; then
    compadd -a opts
  else
    _files
  fi
}
compdef _polyvol polyvol
`,
}

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "completion",
			Usage:     "print a shell completion script (bash or zsh)",
			ArgsUsage: "bash|zsh",
			UsageText: `polyvol completion bash|zsh

Examples:
   source <(polyvol completion bash)           # in ~/.bashrc
   polyvol completion zsh > "${fpath[1]}/_polyvol"`,
			BashComplete: completeShells,
			Action: func(c *ucli.Context) error {
				script, ok := completionScripts[c.Args().First()]
				if c.NArg() != 1 || !ok {
					return usageErrorf("completion: expected one argument, bash or zsh")
				}
				_, err := fmt.Fprint(c.App.Writer, script)
				return err
			},
		}
	})
}

// complete writes the completion candidates of a command line, one a line:
// words are the words after the program name, the last the word being
// completed. The candidates are the values of a flag when the previous word
// is a flag that takes one and has known values (--device, --format,
// --method, --model), the flags when the current word starts with "-", the
// command names before a command, and otherwise the command's arguments
// (its BashComplete: example names for a SPEC, device names, shells).
func complete(app *ucli.App, words []string) {
	cur := ""
	if len(words) > 0 {
		cur, words = words[len(words)-1], words[:len(words)-1]
	}
	i, cmd := findCommand(app, words)
	flags := app.Flags
	if cmd != nil {
		flags = cmd.Flags
	} else if i < len(words) {
		return // an unknown command has no candidates
	}
	takesValue := valueFlags(flags)
	var candidates []string
	prev := ""
	if len(words) > 0 {
		prev = words[len(words)-1]
	}
	switch {
	case strings.HasPrefix(prev, "-") && takesValue[strings.TrimLeft(prev, "-")]:
		candidates = flagValues(flags, strings.TrimLeft(prev, "-"))
	case strings.HasPrefix(cur, "-"):
		for _, f := range append(flags, ucli.HelpFlag) {
			candidates = append(candidates, flagSpelling(f.Names()[0]))
		}
		if cmd == nil {
			candidates = append(candidates, "--"+ucli.VersionFlag.Names()[0])
		}
	case cmd == nil:
		for _, c := range app.Commands {
			candidates = append(candidates, c.Name)
		}
	case cmd.BashComplete != nil:
		// The command sees the arguments given so far (not the flags nor
		// their values), so that it can complete by position.
		var args []string
		for j := i + 1; j < len(words); j++ {
			w := words[j]
			switch {
			case strings.HasPrefix(w, "-"):
				if takesValue[strings.TrimLeft(w, "-")] && !strings.Contains(w, "=") {
					j++
				}
			default:
				args = append(args, w)
			}
		}
		set := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
		_ = set.Parse(args) // positional words only: nothing to refuse
		cmd.BashComplete(ucli.NewContext(app, set, nil))
	}
	for _, c := range candidates {
		fmt.Fprintln(app.Writer, c)
	}
}

// choiceFlag is a string flag with a fixed set of values, which the shell
// completion offers.
type choiceFlag struct {
	*ucli.StringFlag
	Choices []string
}

// methodChoices are the values of the --method flags.
var methodChoices = []string{"exact", "reference"}

// policyChoices are the cache replacement policies of simulate.
var policyChoices = []string{sim.LRU.String(), sim.PLRU.String()}

// flagValues returns the candidates for the value of the named flag: the
// device names for --device, a choiceFlag's choices, otherwise none (the
// shell then completes file names).
func flagValues(flags []ucli.Flag, name string) []string {
	if name == "device" {
		var names []string
		for _, d := range device.All() {
			names = append(names, d.Name)
		}
		return names
	}
	for _, f := range flags {
		if cf, ok := f.(*choiceFlag); ok && slices.Contains(cf.Names(), name) {
			return cf.Choices
		}
	}
	return nil
}

// completeSpecs completes a SPEC argument with the embedded example names.
func completeSpecs(c *ucli.Context) { printLines(c.App.Writer, examples.Names()) }

// completeDevices completes a device NAME argument.
func completeDevices(c *ucli.Context) { printLines(c.App.Writer, flagValues(nil, "device")) }

// completeShells completes the argument of the completion command.
func completeShells(c *ucli.Context) {
	printLines(c.App.Writer, slices.Sorted(maps.Keys(completionScripts)))
}

// printLines writes each line followed by a newline.
func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
