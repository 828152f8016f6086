package sandbox

import (
	"context"
	"io"
	"strings"
	"testing"
)

// A child that exits while the sandbox waits for it is named with the end
// of what it wrote, the line that says why among it: CI keeps no log file.
func TestWaitForNamesTheEndOfTheOutput(t *testing.T) {
	t.Parallel()
	script := `for i in $(seq 1 40); do echo "line $i"; done; echo "listen tcp 127.0.0.1:9443: bind: address already in use" >&2; exit 1`
	p, err := startProcess("kueue", io.Discard, "/bin/sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	err = waitFor(context.Background(), p, "Kueue to be ready", func(context.Context) error { return io.ErrUnexpectedEOF })
	if err == nil {
		t.Fatal("waitFor succeeded on a child that exited")
	}
	msg := err.Error()
	for _, want := range []string{"kueue exited while waiting for Kueue to be ready", "exit status 1", "bind: address already in use", "line 40"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not hold %q", msg, want)
		}
	}
	if strings.Contains(msg, "line 29\n") || strings.Contains(msg, "line 1\n") {
		t.Errorf("error %q holds more than the last %d lines", msg, tailLines)
	}
}

func TestOutputTailKeepsTheLastLinesCut(t *testing.T) {
	t.Parallel()
	var tail outputTail
	for _, chunk := range []string{"a\nb", "c\n\n", strings.Repeat("x", 2*tailLineBytes) + "\n", "under way"} {
		if n, err := tail.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	want := "\n    a\n    bc\n    " + strings.Repeat("x", tailLineBytes) + "\n    under way"
	if got := tail.String(); got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
	for i := range 3 * tailLines {
		_, _ = tail.Write([]byte{byte('A' + i%26), '\n'})
	}
	if got := strings.Count(tail.String(), "\n    "); got != tailLines {
		t.Errorf("tail kept %d lines, want %d", got, tailLines)
	}
}

// The ports the sandbox's children listen on lie below the kernel's
// ephemeral range, which outgoing connections draw from.
func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	t.Parallel()
	lo, ok := ephemeralLow()
	if !ok {
		t.Skip("no /proc/sys/net/ipv4/ip_local_port_range on this system: the kernel picks")
	}
	for range 20 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < lo/2 || port >= lo {
			t.Errorf("freePort() = %d, want one in [%d, %d)", port, lo/2, lo)
		}
	}
}
