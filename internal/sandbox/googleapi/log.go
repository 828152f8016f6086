package googleapi

import (
	"io"
	"log"
	"os"
	"sync"
)

// apiLog receives the APIs' notes on requests: the fields they ignore and
// the requests they refuse. The sandbox sends it to google-apis.log.
var apiLog = struct {
	sync.Mutex
	l *log.Logger
}{l: log.New(os.Stderr, "gke-sandbox: ", log.LstdFlags)}

// Logf writes a line to the APIs' log.
func Logf(format string, args ...any) {
	apiLog.Lock()
	defer apiLog.Unlock()
	apiLog.l.Printf(format, args...)
}

// SetLogOutput sends the APIs' log to w.
func SetLogOutput(w io.Writer) {
	apiLog.Lock()
	defer apiLog.Unlock()
	apiLog.l.SetOutput(w)
}

// SetLogger replaces the APIs' logger and returns the one it replaced, for
// tests that read the log.
func SetLogger(l *log.Logger) (previous *log.Logger) {
	apiLog.Lock()
	defer apiLog.Unlock()
	previous, apiLog.l = apiLog.l, l
	return previous
}
