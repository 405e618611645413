package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/polyvol/polyvol/examples"
	ucli "github.com/urfave/cli/v2"
)

// completionScripts are the shell scripts printed by the completion command.
// They ask polyvol itself for candidates through urfave/cli's
// --generate-bash-completion flag (the scripts of urfave/cli's autocomplete
// folder, for the program name polyvol).
var completionScripts = map[string]string{
	"bash": `# bash completion for polyvol; load with: source <(polyvol completion bash)
_polyvol_complete() {
  local cur opts
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == "-"* ]]; then
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "${cur}" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _polyvol_complete polyvol
`,
	"zsh": `#compdef polyvol
# zsh completion for polyvol; load with: source <(polyvol completion zsh)
_polyvol() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
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

// completeSpecs is the shell completion of commands that take a SPEC: the
// command's flags when the word being completed starts with "-", otherwise
// the embedded example names. Like urfave/cli's own completion it reads the
// word from os.Args, where the completion scripts put it.
func completeSpecs(c *ucli.Context) {
	if n := len(os.Args); n > 2 && strings.HasPrefix(os.Args[n-2], "-") {
		ucli.DefaultCompleteWithFlags(c.Command)(c)
		return
	}
	for _, n := range examples.Names() {
		fmt.Fprintln(c.App.Writer, n)
	}
}
