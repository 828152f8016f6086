package clients

import (
	"errors"
	"fmt"
	"io"
)

// jsonFrames follows a stream of JSON objects (a Kubernetes answer, or a
// watch's events) as it is read, without holding it: it tells an object
// from what cannot be one (an HTML page, a bare array or number, garbage
// between events) and a stream that ends inside an object (a cut answer).
// It checks the framing only (braces, brackets, strings), which is what
// tells a broken answer from a whole one; the decoder behind it checks the
// rest.
type jsonFrames struct {
	depth    int
	inString bool
	escaped  bool
	// objects is how many top-level objects have ended.
	objects int
	// read is how many bytes it has seen; head the first of them, for an
	// error's excerpt.
	read int64
	head []byte

	// check, when set, judges each top-level object by its members as it
	// ends (a Kubernetes object has a kind, a watch event a type): the
	// problem it names ("" for none) fails the stream there.
	check func(m *topMembers, index int) string
	// members are the current top-level object's members (followed only
	// with a check), objStart where it began and objHead its first bytes,
	// for an error's excerpt.
	members  topMembers
	objStart int64
	objHead  []byte
	// member is where the current object's top level stands, and capture
	// what its string being read is (a key, a value kept, or neither),
	// read so far into captured.
	member   memberState
	capture  captureKind
	captured []byte
	lastKey  string
}

// errFraming is what jsonFrames found wrong; its text is the problem an
// error names.
type errFraming struct {
	problem string
	// at is the bytes from where the stream went wrong, from byte from
	// (nil: it ended wrong).
	at   []byte
	from int64
}

func (e *errFraming) Error() string { return e.problem }

// feed takes the next bytes of the stream, and reports the first thing in
// them that no stream of JSON objects holds.
func (f *jsonFrames) feed(p []byte) error {
	if room := MaxExcerpt - len(f.head); room > 0 {
		f.head = append(f.head, p[:min(room, len(p))]...)
	}
	for i, c := range p {
		if f.check != nil && f.depth > 0 && len(f.objHead) < MaxExcerpt {
			f.objHead = append(f.objHead, c)
		}
		switch {
		case f.inString:
			switch {
			case f.escaped:
				f.escaped = false
				f.keep(c)
			case c == '\\':
				f.escaped = true
				f.keep(c)
			case c == '"':
				f.inString = false
				f.endString()
			default:
				f.keep(c)
			}
		case f.depth == 0:
			switch c {
			case ' ', '\t', '\r', '\n':
			case '{':
				f.depth = 1
				if f.check != nil {
					f.startObject(f.read + int64(i))
				}
			default:
				return &errFraming{problem: fmt.Sprintf("byte %d is %q where a JSON object should begin", f.read+int64(i), c),
					at: p[i:min(i+MaxExcerpt, len(p))], from: f.read + int64(i)}
			}
		default:
			if f.depth == 1 && f.check != nil {
				f.topLevel(c)
			}
			switch c {
			case '"':
				f.inString = true
			case '{', '[':
				f.depth++
			case '}', ']':
				f.depth--
				if f.depth == 0 {
					f.objects++
					if err := f.endObject(); err != nil {
						return err
					}
				}
			}
		}
	}
	f.read += int64(len(p))
	return nil
}

// end reports a stream that ended where no stream of JSON objects ends:
// before its first object, or inside one.
func (f *jsonFrames) end() error {
	switch {
	case f.depth > 0 || f.inString:
		return &errFraming{problem: fmt.Sprintf("the JSON is cut short: the body ends after %d bytes, inside an object", f.read)}
	case f.objects == 0 && f.read == 0:
		return &errFraming{problem: "the body is empty"}
	case f.objects == 0:
		return &errFraming{problem: "the body holds no JSON object"}
	}
	return nil
}

// framedBody is a body read through a jsonFrames: a read that meets what
// cannot be a JSON object, or an end inside one, fails with the error
// malformed makes of the problem. After the first such error it keeps
// failing with it.
type framedBody struct {
	io.ReadCloser
	frames    jsonFrames
	malformed func(problem string, excerpt []byte, from int64) error
	// allowEmpty takes a stream that ends before its first object as
	// whole (a watch that ends before any event).
	allowEmpty bool
	err        error
}

func (b *framedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	if ferr := b.frames.feed(p[:n]); ferr != nil {
		// The excerpt is what came where an object should have begun.
		var fe *errFraming
		if errors.As(ferr, &fe) && fe.at != nil {
			b.err = b.malformed(ferr.Error(), fe.at, fe.from)
		} else {
			b.err = b.malformed(ferr.Error(), b.frames.head, 0)
		}
		return 0, b.err
	}
	if errors.Is(err, io.EOF) {
		if ferr := b.frames.end(); ferr != nil && (!b.allowEmpty || b.frames.objects != 0 || b.frames.depth != 0) {
			b.err = b.malformed(ferr.Error(), b.frames.head, 0)
			return n, b.err
		}
	}
	return n, err
}
