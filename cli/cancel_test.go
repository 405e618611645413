package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestServerRunStopsPredict checks that a predict that polyvol serve runs
// under an ended context (a request whose budget ran out or whose client
// left) estimates nothing: it writes no prediction and returns the
// context's error, which is no user error.
func TestServerRunStopsPredict(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	err := RunForServer(ctx, []string{"predict", "star3d-r4", "--format=json"}, strings.NewReader(""), &stdout, &stderr)
	if !errors.Is(err, context.Canceled) || isUsageError(err) {
		t.Fatalf("error %v; want context.Canceled, not a user error", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("a cancelled predict wrote %q", stdout.String())
	}
	if err := RunForServer(context.Background(), []string{"predict", "star3d-r4", "--format=json"}, strings.NewReader(""), &stdout, &stderr); err != nil || stdout.Len() == 0 {
		t.Errorf("predict under a live context: error %v, %d bytes", err, stdout.Len())
	}
}
