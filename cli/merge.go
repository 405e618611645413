package cli

import (
	"fmt"
	"os"

	"github.com/polyvol/polyvol/request"
	ucli "github.com/urfave/cli/v2"
)

func init() {
	register(func() *ucli.Command {
		return &ucli.Command{
			Name:      "merge",
			Usage:     "combine the outputs of explore --shard K/N into the unsharded result",
			ArgsUsage: "FILE...",
			UsageText: `polyvol merge FILE... [--format table|json|csv] [--top N]

Each FILE is the JSON output of one 'polyvol explore --shard K/N' run of
this polyvol version; all N shards of the same exploration must be given, in
any order. The output is
byte-identical to the exploration run without --shard, in the format and
with the --top the shards were run with unless --format or --top is given.

Examples:
   polyvol merge shard-*.json
   polyvol merge --format csv shard-1.json shard-2.json shard-3.json`,
			Flags: []ucli.Flag{
				&choiceFlag{&ucli.StringFlag{Name: "format", Usage: "output `FORMAT`: table, json or csv", DefaultText: "the shards'"}, []string{formatTable, formatJSON, formatCSV}},
				&ucli.IntFlag{Name: "top", Usage: "`N` rows of the table, 0: all (at most " + fmt.Sprint(request.MaxTop) + ")", DefaultText: "the shards'"},
			},
			Action: runMerge,
		}
	})
}

// runMerge is the action of the merge command.
func runMerge(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usageErrorf("merge needs the shard files of one exploration")
	}
	e, err := mergeShards(c.Args().Slice())
	if err != nil {
		return err
	}
	format, top := e.Shard.Format, e.Shard.Top
	if c.IsSet("format") {
		if format, err = outputFormat(c, formatTable, formatJSON, formatCSV); err != nil {
			return err
		}
	}
	if c.IsSet("top") {
		top = c.Int("top")
		if err := request.CheckTop(top); err != nil {
			return flagErrorf("top", "--top %d: %v", top, err)
		}
	}
	e.Shard = nil
	return writeExploration(c.App.Writer, c.App.ErrWriter, e, format, top)
}

// mergeShards reads the shard files (readShard) and merges them
// (request.Merge) into one exploration whose Shard holds the shards'
// format and top.
func mergeShards(paths []string) (*request.Exploration, error) {
	shards := make([]*request.Exploration, len(paths))
	for i, path := range paths {
		var err error
		if shards[i], err = readShard(path); err != nil {
			return nil, err
		}
	}
	return request.Merge(shards, paths)
}

// readShard reads one shard file (request.ReadShard).
func readShard(path string) (*request.Exploration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, asUsage(err)
	}
	defer f.Close()
	return request.ReadShard(f, path)
}
