package googleapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Request bodies are read as Google's front end reads them, before the
// emulation sees them:
//
//   - null is absent, for any field at any depth (the proto3 JSON mapping;
//     gcloud and the Terraform google provider send nulls for unset
//     fields);
//   - a field the published API defines is accepted, under its JSON name
//     (lowerCamel) or its proto name (snake_case), which is rewritten to
//     the JSON name;
//   - a field the API does not define is refused with GCP's 400 ("Invalid
//     JSON payload received. Unknown name ...: Cannot find field.");
//   - a defined field the sandbox does not emulate changes nothing: it is
//     logged (which field, which request) and left in the body, so that
//     what the sandbox echoes back (a node pool) still holds it.
//
// "Defined" is what the discovery documents of compute/v1, container/v1
// and container/v1beta1 define, read off the Go types that
// google.golang.org/api generates from them: the JSON tags, recursively.
// Nothing is copied into the repository, and a newer google.golang.org/api
// brings the newer fields.

// BodySpec describes one request body: its Go type in google.golang.org/api,
// how GCP names it in errors, and which of its fields the sandbox emulates.
type BodySpec struct {
	// Method names the request in log lines ("compute resourcePolicies.insert").
	Method string
	// Type is the body's type in google.golang.org/api.
	Type reflect.Type
	// Root is the body's proto field name in GCP's error paths: the
	// resource field of the request message for Compute
	// ("resource_policy"), "" where the body is the request message
	// (GKE).
	Root string
	// Emulated are the dotted JSON paths of the fields the sandbox acts on
	// or sets itself (output-only fields): a path covers its subtree, and
	// the parents of a path are looked into field by field. Any other
	// field that is set is logged as ignored.
	Emulated []string
}

// fieldSchema is the shape of a JSON value of a Go API type: an object's
// fields, a list's or map's elements, or nothing to check (a scalar, or a
// free-form value).
type fieldSchema struct {
	fields map[string]*fieldSchema // for an object
	elem   *fieldSchema            // for a list or a map
	isMap  bool
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[reflect.Type]*fieldSchema{}
)

// schemaOf derives the schema of a google.golang.org/api type from its
// JSON tags. Types may refer to themselves; the cache entry is made before
// the fields are filled in, so a cycle ends at it.
func schemaOf(t reflect.Type) *fieldSchema {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	return schemaOfLocked(t)
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

func schemaOfLocked(t reflect.Type) *fieldSchema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := schemaCache[t]; ok {
		return s
	}
	s := &fieldSchema{}
	schemaCache[t] = s
	switch {
	case reflect.PointerTo(t).Implements(jsonUnmarshaler) || t.Implements(jsonUnmarshaler):
		// Free-form (googleapi.RawMessage) or custom: not checked.
	case t.Kind() == reflect.Struct:
		s.fields = map[string]*fieldSchema{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			s.fields[name] = schemaOfLocked(f.Type)
		}
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		s.elem = schemaOfLocked(t.Elem())
	case t.Kind() == reflect.Map:
		s.elem, s.isMap = schemaOfLocked(t.Elem()), true
	}
	return s
}

// AcceptBody reads a request body as GCP reads it (see the top of this
// file) and returns it, re-encoded, for the handler's own decoding; on a
// body GCP refuses it writes GCP's 400 and returns false.
func AcceptBody(rw http.ResponseWriter, r *http.Request, spec BodySpec) ([]byte, bool) {
	raw, err := ReadBody(rw, r)
	if err != nil {
		BadRequest(rw, "Reading the request body: "+err.Error())
		return nil, false
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var body any
	if err := dec.Decode(&body); err != nil {
		WriteInvalidJSON(rw, []FieldViolation{{spec.Root, "Invalid JSON payload received. " + err.Error()}})
		return nil, false
	}
	if body == nil {
		body = map[string]any{}
	}
	obj, ok := body.(map[string]any)
	if !ok {
		WriteInvalidJSON(rw, []FieldViolation{{spec.Root, "Invalid JSON payload received. The request body must be a JSON object."}})
		return nil, false
	}
	c := bodyCheck{emulated: spec.Emulated}
	c.walk(obj, schemaOf(spec.Type), spec.Root, "")
	if len(c.unknown) > 0 {
		WriteInvalidJSON(rw, c.unknown)
		return nil, false
	}
	if len(c.ignored) > 0 {
		sort.Strings(c.ignored)
		Logf("%s %s: ignored fields the sandbox does not emulate: %s", spec.Method, r.URL.Path, strings.Join(c.ignored, ", "))
	}
	out, err := json.Marshal(obj)
	if err != nil {
		BadRequest(rw, "Re-encoding the request body: "+err.Error())
		return nil, false
	}
	return out, true
}

// bodyCheck collects, over one walk of a body, the fields that no
// discovery document defines and those the sandbox ignores.
type bodyCheck struct {
	emulated []string
	unknown  []FieldViolation
	ignored  []string
}

// walk checks the object v against s: it drops null fields, renames proto
// names to JSON names, records unknown fields (at protoPath, GCP's
// snake_case path for errors) and ignored ones (by their JSON path).
// jsonPath is "-" when emulation is not tracked below this point (a field
// the sandbox emulates or ignores as a whole).
func (c *bodyCheck) walk(v map[string]any, s *fieldSchema, protoPath, jsonPath string) {
	if s.fields == nil {
		return
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := v[k]
		name := k
		fs, ok := s.fields[k]
		if !ok && strings.Contains(k, "_") {
			name = lowerCamel(k)
			fs, ok = s.fields[name]
		}
		switch {
		case !ok:
			// Refused whatever its value, null included: the name is
			// read before the value.
			msg := fmt.Sprintf("Invalid JSON payload received. Unknown name %q", k)
			if protoPath != "" {
				msg += fmt.Sprintf(" at '%s'", protoPath)
			}
			c.unknown = append(c.unknown, FieldViolation{protoPath, msg + ": Cannot find field."})
			continue
		case val == nil:
			delete(v, k)
			continue
		case name != k:
			delete(v, k)
			v[name] = val
		}
		childJSON := "-"
		if jsonPath != "-" {
			p := strings.TrimPrefix(jsonPath+"."+name, ".")
			switch c.coverage(p) {
			case partly:
				childJSON = p
			case ignoredField:
				c.ignored = append(c.ignored, p)
			}
		}
		c.walkValue(val, fs, joinProto(protoPath, snakeCase(name)), childJSON)
	}
}

// walkValue checks a field's value: an object against its fields, each
// element of a list or map against the element schema.
func (c *bodyCheck) walkValue(val any, s *fieldSchema, protoPath, jsonPath string) {
	switch x := val.(type) {
	case map[string]any:
		if s.isMap {
			for k, e := range x {
				if e == nil {
					delete(x, k)
					continue
				}
				c.walkValue(e, s.elem, fmt.Sprintf("%s[%s]", protoPath, k), "-")
			}
			return
		}
		c.walk(x, s, protoPath, jsonPath)
	case []any:
		if s.elem == nil {
			return
		}
		for i, e := range x {
			c.walkValue(e, s.elem, fmt.Sprintf("%s[%d]", protoPath, i), "-")
		}
	}
}

type coverage int

const (
	covered      coverage = iota // the sandbox emulates the field and all below it
	partly                       // the sandbox emulates some fields below it
	ignoredField                 // the sandbox emulates nothing of it
)

func (c *bodyCheck) coverage(path string) coverage {
	result := ignoredField
	for _, e := range c.emulated {
		switch {
		case e == path:
			return covered
		case strings.HasPrefix(e, path+"."):
			result = partly
		}
	}
	return result
}

func joinProto(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// snakeCase is a JSON name's proto field name: workloadPolicy ->
// workload_policy.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lowerCamel is a proto field name's JSON name: workload_policy ->
// workloadPolicy.
func lowerCamel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// FieldViolation is one entry of a google.rpc.BadRequest.
type FieldViolation struct {
	Field, Description string
}

// WriteInvalidJSON answers as Google's front end does for a body it cannot
// map onto the request message: 400 INVALID_ARGUMENT, the violations
// joined in the message and listed in a google.rpc.BadRequest detail.
func WriteInvalidJSON(rw http.ResponseWriter, violations []FieldViolation) {
	msgs := make([]string, len(violations))
	fv := make([]map[string]string, len(violations))
	for i, v := range violations {
		msgs[i] = v.Description
		fv[i] = map[string]string{"field": v.Field, "description": v.Description}
	}
	message := strings.Join(msgs, "\n")
	WriteJSON(rw, http.StatusBadRequest, map[string]any{"error": map[string]any{
		"code":    http.StatusBadRequest,
		"message": message,
		"status":  "INVALID_ARGUMENT",
		"errors":  []map[string]string{{"message": message, "domain": "global", "reason": "invalid"}},
		"details": []map[string]any{{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": fv}},
	}})
}

// UnknownFields lists the fields of obj, at any depth, that typ (a
// google.golang.org/api type) does not define, as GCP would refuse them in
// a request: for checking that what an emulated API answers is what the
// API defines. obj's null fields are dropped.
func UnknownFields(obj map[string]any, typ reflect.Type) []FieldViolation {
	var c bodyCheck
	c.walk(obj, schemaOf(typ), "", "-")
	return c.unknown
}

// ReadBody reads a request body of at most 1 MiB.
func ReadBody(rw http.ResponseWriter, r *http.Request) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(rw, r.Body, 1<<20))
}
