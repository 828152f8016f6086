package clients

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxExcerpt caps the bytes of a malformed answer's body that its error
// quotes: enough to tell a proxy's error page from a cut JSON, too few to
// carry much of whatever else the page holds.
const MaxExcerpt = 160

// MalformedAnswerError is an answer that is not what its caller can
// decode: a cut JSON, a proxy's HTML error page, an empty 200, JSON of
// another shape. It names who answered what, and what to check. It holds
// no header and no token: only the first bytes of the body, with anything
// that looks like a credential in them masked.
type MalformedAnswerError struct {
	// API is the API the request was for: "Compute", "GKE", "Kubernetes".
	API string
	// Method and Host are the request's method and its URL's host (its
	// path and query are not quoted: a query may carry a page token).
	Method, Host string
	// Status is the answer's HTTP status; ContentType its Content-Type
	// header as sent ("" when none was).
	Status      int
	ContentType string
	// Problem says what is wrong with the answer ("the body is empty").
	Problem string
	// Excerpt is the first bytes of the body (at most MaxExcerpt), made
	// printable and masked; or, when ExcerptFrom is above 0, its bytes
	// from there (where a stream went wrong).
	Excerpt     string
	ExcerptFrom int64
	// Expected is what the caller expected ("a Compute operation").
	Expected string
	// Check says what to check.
	Check string
	// Attempts is how many attempts got such an answer or another
	// transient failure (0 or 1: the request was not retried), over
	// Elapsed.
	Attempts int
	Elapsed  time.Duration
}

func (e *MalformedAnswerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "malformed answer from the %s API at %s to a %s: HTTP %d %s, content type %s: %s",
		e.API, e.Host, e.Method, e.Status, http.StatusText(e.Status), contentTypeWords(e.ContentType), e.Problem)
	switch {
	case e.Excerpt != "" && e.ExcerptFrom > 0:
		fmt.Fprintf(&b, "; from byte %d the body reads %q", e.ExcerptFrom, e.Excerpt)
	case e.Excerpt != "":
		fmt.Fprintf(&b, "; the body begins %q", e.Excerpt)
	}
	fmt.Fprintf(&b, "; expected %s", e.Expected)
	if e.Attempts > 1 {
		round := 100 * time.Millisecond
		if e.Elapsed < time.Second {
			round = time.Millisecond
		}
		fmt.Fprintf(&b, " (%d attempts over %s)", e.Attempts, e.Elapsed.Round(round))
	}
	fmt.Fprintf(&b, ". This is not an answer of the %s API: %s", e.API, e.Check)
	return b.String()
}

// summary is the error in a few words, for a retry's log line.
func (e *MalformedAnswerError) summary() string {
	return fmt.Sprintf("malformed answer: HTTP %d, content type %s: %s", e.Status, contentTypeWords(e.ContentType), e.Problem)
}

func contentTypeWords(ct string) string {
	if ct == "" {
		return "none"
	}
	return fmt.Sprintf("%q", excerpt([]byte(ct), 80))
}

// credentialLike matches what may be a credential in a body a proxy
// echoed: an OAuth access token, a bearer or basic authorization, a key
// parameter, a JWT.
var credentialLike = regexp.MustCompile(`(?i)(ya29\.[0-9a-z._\-]+|(bearer|basic)\s+[0-9a-z._~+/=\-]+|(access_token|key|token|password)=[^&\s"'<]+|eyJ[0-9a-z_\-]+\.[0-9a-z_\-]+\.[0-9a-z_\-]*)`)

// excerpt is the first limit bytes of body (cut on a rune), with every
// control character but the space made a space, runs of white space made
// one, and anything credential-like masked.
func excerpt(body []byte, limit int) string {
	if len(body) > limit {
		body = body[:limit]
		for len(body) > 0 && !utf8.Valid(body) {
			body = body[:len(body)-1]
		}
	}
	s := strings.Map(func(r rune) rune {
		if r == utf8.RuneError || r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, string(body))
	s = strings.Join(strings.Fields(s), " ")
	return credentialLike.ReplaceAllString(s, "[masked]")
}
