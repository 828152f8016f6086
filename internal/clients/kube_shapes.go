package clients

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// A Kubernetes answer whose framing is whole may still not be a
// Kubernetes object: a gateway's JSON ({"status":"ok"}), a list where one
// object was asked for, a watch whose events have no type. Client-go's
// typed decoding fills an object without kind from the type it asked for,
// making an empty object of such an answer; the dynamic client fails with
// "Object 'Kind' is missing". jsonFrames follows the top-level members of
// each object as the stream passes (their keys, and the values of kind,
// apiVersion and type), without holding it, and kubeShapeCheck judges them
// by what the request asked for.

// memberState is where a top-level object's member reading stands.
type memberState int

const (
	memberKey   memberState = iota // after '{' or ',': a key comes
	memberColon                    // after a key
	memberValue                    // after ':': a value comes
	memberNext                     // in or after a value: ',' or '}' comes
)

// captureKind is what the string being read is, for jsonFrames.
type captureKind int

const (
	captureNone captureKind = iota
	captureKey
	captureValue
)

// maxCaptured caps a key or a kept value: the names and values checked
// are short; a longer one is kept cut, marked so that it matches none.
const maxCaptured = 256

// maxMemberKeys caps the keys an object's error lists.
const maxMemberKeys = 8

// topMembers is what jsonFrames notes of a top-level object's members.
type topMembers struct {
	// keys are its first keys, in order.
	keys []string
	more int
	// kind, apiVersion and eventType are the string values of kind,
	// apiVersion and type ("" when absent or not a string).
	kind, apiVersion, eventType string
	hasItems, hasObject         bool
}

func (m *topMembers) key(k string) {
	if len(m.keys) < maxMemberKeys {
		m.keys = append(m.keys, k)
	} else {
		m.more++
	}
	switch k {
	case "items":
		m.hasItems = true
	case "object":
		m.hasObject = true
	}
}

func (m *topMembers) value(k, v string) {
	switch k {
	case "kind":
		m.kind = v
	case "apiVersion":
		m.apiVersion = v
	case "type":
		m.eventType = v
	}
}

// keptValue says whether the string value of key k is kept.
func keptValue(k string) bool { return k == "kind" || k == "apiVersion" || k == "type" }

// quoted are the keys, quoted and made printable, for an error.
func (m *topMembers) quoted() string {
	if len(m.keys) == 0 {
		return "none"
	}
	q := make([]string, 0, len(m.keys)+1)
	for _, k := range m.keys {
		q = append(q, fmt.Sprintf("%q", excerpt([]byte(k), 40)))
	}
	if m.more > 0 {
		q = append(q, fmt.Sprintf("and %d more", m.more))
	}
	return strings.Join(q, ", ")
}

// startObject begins a top-level object at offset at.
func (f *jsonFrames) startObject(at int64) {
	f.members = topMembers{}
	f.objStart, f.objHead = at, append(f.objHead[:0], '{')
	f.member, f.capture, f.lastKey = memberKey, captureNone, ""
}

// topLevel follows byte c (outside a string) of the current top-level
// object's own members; the caller then frames it.
func (f *jsonFrames) topLevel(c byte) {
	switch f.member {
	case memberKey:
		if c == '"' {
			f.capture, f.captured, f.member = captureKey, f.captured[:0], memberColon
		}
	case memberColon:
		if c == ':' {
			f.member = memberValue
		}
	case memberValue:
		switch c {
		case ' ', '\t', '\r', '\n':
		case '"':
			if keptValue(f.lastKey) {
				f.capture, f.captured = captureValue, f.captured[:0]
			}
			f.member = memberNext
		default:
			// Not a string: a kept key's value is none.
			if keptValue(f.lastKey) {
				f.members.value(f.lastKey, "")
			}
			f.member = memberNext
		}
	case memberNext:
		if c == ',' {
			f.member = memberKey
		}
	}
}

// keep adds byte c of a string to what is captured.
func (f *jsonFrames) keep(c byte) {
	if f.capture == captureNone {
		return
	}
	if len(f.captured) < maxCaptured {
		f.captured = append(f.captured, c)
	} else if len(f.captured) == maxCaptured {
		f.captured = append(f.captured, 0) // cut: matches no name
	}
}

// endString ends a string: a top-level key or a kept value is noted.
func (f *jsonFrames) endString() {
	switch f.capture {
	case captureKey:
		f.lastKey = unquoted(f.captured)
		f.members.key(f.lastKey)
	case captureValue:
		f.members.value(f.lastKey, unquoted(f.captured))
	}
	f.capture = captureNone
}

// unquoted is a JSON string's content (escapes read), as a decoder reads
// it.
func unquoted(raw []byte) string {
	if !strings.ContainsRune(string(raw), '\\') {
		return string(raw)
	}
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
		return string(raw)
	}
	return s
}

// endObject judges the top-level object that just ended.
func (f *jsonFrames) endObject() error {
	if f.check == nil {
		return nil
	}
	if problem := f.check(&f.members, f.objects); problem != "" {
		return &errFraming{problem: problem, at: f.objHead, from: f.objStart}
	}
	return nil
}

// kubeAnswerWant is what a request asks the API server for.
type kubeAnswerWant int

const (
	wantAnyObject kubeAnswerWant = iota // a change's answer: the object, or a Status
	wantObject                          // a read of one named object
	wantList                            // a read of a collection
)

// kubeShapeCheck is the check of the top-level objects of a JSON answer to
// req, or nil for an answer that need not be a Kubernetes object (the
// discovery documents, a subresource, a path outside /api and /apis).
func kubeShapeCheck(req *http.Request) func(m *topMembers, index int) string {
	if isWatch(req) {
		return watchEventProblem
	}
	collection, named, ok := kubeResourcePath(req.URL.Path)
	if !ok {
		return nil
	}
	want := wantAnyObject
	switch {
	case req.Method != http.MethodGet:
	case named:
		want = wantObject
	case collection && !strings.Contains(req.Header.Get("Accept"), "as="):
		// (A read "as" a Table or a PartialObjectMetadataList asks for
		// another kind.)
		want = wantList
	}
	return func(m *topMembers, _ int) string { return kubeObjectProblem(m, want) }
}

// kubeResourcePath reads a path of the API server: a collection of a
// resource (/api/v1/nodes, /apis/g/v/namespaces/ns/r) or one named object
// of it; ok is false for any other (discovery, a subresource, a path
// outside the resource APIs).
func kubeResourcePath(path string) (collection, named, ok bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var rest []string
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		rest = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		rest = segs[3:]
	default:
		return false, false, false
	}
	// (A namespace's own subresources, status and finalize, are not a
	// collection in it.)
	namespaceSubresource := len(rest) == 3 && (rest[2] == "status" || rest[2] == "finalize")
	if len(rest) >= 3 && rest[0] == "namespaces" && !namespaceSubresource {
		rest = rest[2:]
	}
	switch len(rest) {
	case 1:
		return true, false, true
	case 2:
		return false, true, true
	}
	return false, false, false
}

// kubeObjectProblem says how a top-level object m of an answer is not the
// Kubernetes object wanted, or "".
func kubeObjectProblem(m *topMembers, want kubeAnswerWant) string {
	const notObject = "the JSON object is not a Kubernetes object: "
	switch {
	case m.kind == "" && m.apiVersion == "":
		return notObject + "it has no kind and no apiVersion (its keys: " + m.quoted() + ")"
	case m.kind == "":
		return notObject + "it has no kind (its keys: " + m.quoted() + ")"
	case m.apiVersion == "":
		return notObject + fmt.Sprintf("its kind %q has no apiVersion (its keys: %s)", excerpt([]byte(m.kind), 60), m.quoted())
	case want == wantObject && m.hasItems && strings.HasSuffix(m.kind, "List"):
		return fmt.Sprintf("the JSON object is a list (kind %q, with items) where one object was asked for", excerpt([]byte(m.kind), 60))
	case want == wantList && !m.hasItems && !strings.HasSuffix(m.kind, "List"):
		return fmt.Sprintf("the JSON object is one object (kind %q, no items) where a list was asked for", excerpt([]byte(m.kind), 60))
	}
	return ""
}

// watchEventProblem says how a top-level object m, event index of a
// watch, is not a watch event (a type and an object), or "".
func watchEventProblem(m *topMembers, index int) string {
	if m.eventType != "" && m.hasObject {
		return ""
	}
	return fmt.Sprintf("event %d of the watch is not a Kubernetes watch event: it has no type and object (its keys: %s)", index, m.quoted())
}
