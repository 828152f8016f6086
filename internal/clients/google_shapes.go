package clients

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// A Google API answer that is a JSON object may still be of another
// shape: a gateway's own JSON ({"data":…}, {"status":"ok"}), an error
// object where a resource was expected, a field of the wrong type. The
// clients do not tell it: the Compute client decodes with protojson
// discarding unknown fields, the GKE client with encoding/json, which
// ignores them; either makes an empty message of an object none of whose
// keys it knows, and fails on a known field of the wrong type with a bare
// decoding error. answerShape decides as they decode, for the answers
// whose message the request names (googleAnswerShape).

// answerShape is the message an answer decodes into, as its client
// decodes it.
type answerShape struct {
	// what names it, as an error says what was expected ("a Compute
	// operation").
	what string
	// knows says whether an object's key is a field of the message.
	knows func(key string) bool
	// decode decodes body as the client does.
	decode func(body []byte) error
}

// problem says how body (one JSON object) is not of the shape, or "": an
// object with keys, none of which the message knows; or an object the
// client would fail to decode. An empty object is a message with every
// field unset, which some methods answer.
func (s *answerShape) problem(body []byte) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return "" // not an object: jsonObjectProblem's to name
	}
	if len(obj) > 0 && !slices.ContainsFunc(mapKeys(obj), s.knows) {
		return fmt.Sprintf("the JSON object is of another shape: none of its keys (%s) is a field of %s", quotedKeys(obj), s.what)
	}
	if err := s.decode(body); err != nil {
		return fmt.Sprintf("the JSON object is of another shape: it does not decode as %s (%s)", s.what, excerpt([]byte(err.Error()), MaxExcerpt))
	}
	return ""
}

func mapKeys(obj map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// quotedKeys are the object's first keys in order, quoted and made
// printable.
func quotedKeys(obj map[string]json.RawMessage) string {
	const most = 5
	keys := mapKeys(obj)
	quoted := make([]string, 0, most+1)
	for i, k := range keys {
		if i == most {
			quoted = append(quoted, fmt.Sprintf("and %d more", len(keys)-most))
			break
		}
		quoted = append(quoted, fmt.Sprintf("%q", excerpt([]byte(k), 40)))
	}
	return strings.Join(quoted, ", ")
}

// protoShape is the shape of a Compute message, as the Compute REST
// client decodes it: protojson, unknown fields discarded; a key is a
// field's JSON name or its proto name (protojson takes both).
func protoShape(what string, m proto.Message) *answerShape {
	fields := m.ProtoReflect().Descriptor().Fields()
	return &answerShape{what: what,
		knows: func(key string) bool {
			return fields.ByJSONName(key) != nil || fields.ByTextName(key) != nil
		},
		decode: func(body []byte) error {
			return protojson.UnmarshalOptions{AllowPartial: true, DiscardUnknown: true}.Unmarshal(body, m.ProtoReflect().New().Interface())
		}}
}

// structShape is the shape of a GKE message (a struct of
// google.golang.org/api/container/v1), as its client decodes it:
// encoding/json, which matches keys to fields' JSON names without regard
// to case.
func structShape(what string, v any) *answerShape {
	t := reflect.TypeOf(v).Elem()
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "-" && name != "" && f.IsExported() {
			names = append(names, name)
		}
	}
	return &answerShape{what: what,
		knows: func(key string) bool {
			return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, key) })
		},
		decode: func(body []byte) error { return json.Unmarshal(body, reflect.New(t).Interface()) }}
}

// googleCollection is a collection the provider reads, with the messages
// of its objects and of its lists.
type googleCollection struct {
	kind, kinds string
	item, list  func(what string) *answerShape
}

func protoOf(m proto.Message) func(string) *answerShape {
	return func(what string) *answerShape { return protoShape(what, m) }
}

func structOf(v any) func(string) *answerShape {
	return func(what string) *answerShape { return structShape(what, v) }
}

var (
	computeCollections = map[string]googleCollection{
		"resourcePolicies": {"resource policy", "resource policies", protoOf(&computepb.ResourcePolicy{}), protoOf(&computepb.ResourcePolicyList{})},
		"reservations":     {"reservation", "reservations", protoOf(&computepb.Reservation{}), protoOf(&computepb.ReservationList{})},
		"reservationBlocks": {"reservation block", "reservation blocks",
			protoOf(&computepb.ReservationBlocksGetResponse{}), protoOf(&computepb.ReservationBlocksListResponse{})},
		"reservationSubBlocks": {"reservation sub-block", "reservation sub-blocks",
			protoOf(&computepb.ReservationSubBlocksGetResponse{}), protoOf(&computepb.ReservationSubBlocksListResponse{})},
		"reservationSlots": {"reservation slot", "reservation slots",
			protoOf(&computepb.ReservationSlotsGetResponse{}), protoOf(&computepb.ReservationSlotsListResponse{})},
		"instances":  {"instance", "instances", protoOf(&computepb.Instance{}), protoOf(&computepb.InstanceList{})},
		"operations": {"operation", "operations", protoOf(&computepb.Operation{}), protoOf(&computepb.OperationList{})},
	}
	gkeCollections = map[string]googleCollection{
		"clusters":   {"cluster", "clusters", structOf(&container.Cluster{}), structOf(&container.ListClustersResponse{})},
		"nodePools":  {"node pool", "node pools", structOf(&container.NodePool{}), structOf(&container.ListNodePoolsResponse{})},
		"operations": {"operation", "operations", structOf(&container.Operation{}), structOf(&container.ListOperationsResponse{})},
	}
	computeOperationShape = protoOf(&computepb.Operation{})
	gkeOperationShape     = structOf(&container.Operation{})
)

// googlePath is what a Google API request's path names: the last
// collection, whether it names one object of it, and a method's verb
// after it (".../nodePools/np:setManagement", ".../operations/op/wait").
type googlePath struct {
	collection string
	named      bool
	verb       string
}

// parseGooglePath reads a path of the Compute or GKE API, from its
// "projects" segment on, as pairs of a collection and a name; ok is false
// for a path without one.
func parseGooglePath(path string, collections map[string]googleCollection) (p googlePath, ok bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	start := slices.Index(segs, "projects")
	if start < 0 || start+2 >= len(segs) {
		return p, false
	}
	for j := start + 2; j < len(segs); j += 2 {
		if j+1 < len(segs) {
			p.collection, p.named, p.verb = segs[j], true, ""
			continue
		}
		// A last segment alone: a collection, or the named object's verb.
		if _, isCollection := collections[segs[j]]; p.named && !isCollection {
			p.verb = segs[j]
		} else {
			p.collection, p.named = segs[j], false
		}
	}
	if name := segs[len(segs)-1]; p.named && p.verb == "" {
		if _, verb, found := strings.Cut(name, ":"); found {
			p.verb = verb
		}
	}
	return p, true
}

// shapeCache holds the shapes built, one per API, method and path kind.
var shapeCache sync.Map

// googleAnswerShape is the shape of a 2xx answer to method on path of the
// API ("Compute", "GKE"), or nil when the provider's clients do not name
// it here (another method: its answer is only checked to be a JSON
// object). A change answers an operation, but for the methods that answer
// another message (IAM, a cancel, a node pool's completeUpgrade); a read,
// the object it names or a page of its collection.
func googleAnswerShape(api, method, path string) *answerShape {
	collections, op := computeCollections, computeOperationShape
	if api == "GKE" {
		collections, op = gkeCollections, gkeOperationShape
	}
	p, ok := parseGooglePath(path, collections)
	if !ok {
		return nil
	}
	c, known := collections[p.collection]
	if !known {
		return nil
	}
	key := fmt.Sprintf("%s %s %s %t %s", api, method, p.collection, p.named, p.verb)
	if cached, ok := shapeCache.Load(key); ok {
		s, _ := cached.(*answerShape)
		return s
	}
	var s *answerShape
	switch {
	case method == http.MethodGet && p.verb != "":
	case method == http.MethodGet && p.named:
		s = c.item("a " + api + " " + c.kind)
	case method == http.MethodGet:
		s = c.list("a list of " + api + " " + c.kinds)
	case strings.HasSuffix(p.verb, "IamPolicy"), p.verb == "testIamPermissions", p.verb == "cancel", p.verb == "completeUpgrade":
	case api == "GKE" && p.collection != "nodePools":
		// The GKE methods the provider calls that answer an operation
		// are the node pools'.
	default:
		s = op("a " + api + " operation")
	}
	shapeCache.Store(key, s)
	return s
}
