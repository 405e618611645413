package cli

import (
	"strings"
	"testing"
)

// FuzzPredictFlags runs predict on vec-copy and star2d-r1 with fuzzed
// --block, --fold, --domain and --method values. Whatever the values, the
// command must exit 0 with output, or 2 with exactly one line on stderr
// naming a flag or the launch; never 1 (an internal failure) and never a
// panic.
func FuzzPredictFlags(f *testing.F) {
	f.Add("vec-copy", "256", "1", "", "exact")
	f.Add("star2d-r1", "32,8", "1,2", "64,64", "reference")
	f.Add("star2d-r1", "0,8", "1,1", "", "exact")
	f.Add("vec-copy", "1024,1,1", "3", "1000000000000000000", "exact")
	f.Add("star2d-r1", "64,y", "1,1,1,1", "-5,4", "magic")
	f.Add("vec-copy", "2048", "1", "1", "reference")
	f.Fuzz(func(t *testing.T, spec, block, fold, domain, method string) {
		if spec != "vec-copy" && spec != "star2d-r1" {
			spec = "vec-copy"
		}
		args := []string{"predict", spec, "--block", block, "--fold", fold, "--method", method, "--format", "csv"}
		if domain != "" {
			args = append(args, "--domain", domain)
		}
		out, errOut, code := run(t, args...)
		switch code {
		case ExitOK:
			if out == "" {
				t.Fatalf("%q: exit 0 without output", args)
			}
		case ExitUsage:
			if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "polyvol: ") {
				t.Fatalf("%q: usage error is not one line: %q", args, errOut)
			}
		default:
			t.Fatalf("%q: exit %d, stderr %q", args, code, errOut)
		}
	})
}

// FuzzShardFlag checks that --shard values either parse into shards with
// 1 <= K <= N or fail with a usage error, never a panic.
func FuzzShardFlag(f *testing.F) {
	for _, s := range []string{"3/8", "0/1", "8/3", "1/", "-1/-1", "9223372036854775807/9223372036854775807", "slurm", ":", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if shard, err := parseShard(s, func(string) string { return s }); err == nil {
			if shard.Index < 1 || shard.Index > shard.Count {
				t.Fatalf("--shard %q: accepted %d/%d", s, shard.Index, shard.Count)
			}
		} else if _, ok := err.(*UsageError); !ok {
			t.Fatalf("--shard %q: error %T is not a usage error", s, err)
		}
	})
}
