package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The emulated Compute Engine API (compute/v1, REST and JSON as the
// cloud.google.com/go/compute/apiv1 clients speak it). It serves what the
// provider uses:
//
//	regions/R/resourcePolicies             insert, get, list, delete (workload policies only)
//	regions/R/operations/O[/wait]          get, wait
//	zones/Z/operations/O[/wait]            get, wait
//	zones/Z/reservations[/R]               list, get
//	zones/Z/reservations/R/reservationBlocks[/B]                          list, get
//	zones/Z/reservations/R/reservationBlocks/B/reservationSubBlocks[/S]   list, get
//	aggregated/resourcePolicies, aggregated/reservations                  list
//
// everything under /compute/v1/projects/P/. Anything else is a 404 in the
// Google error shape. A sub-block's parent, reservations/R/reservationBlocks/B,
// may come as one escaped path segment, as gcloud sends it.

// computeLinkBase is where Compute Engine self links start.
const computeLinkBase = "https://www.googleapis.com/compute/v1/"

// computeTimeFormat is how Compute Engine writes times (RFC 3339 with
// milliseconds and a numeric zone).
const computeTimeFormat = "2006-01-02T15:04:05.000-07:00"

// Paging limits of Compute Engine list methods.
const (
	computeDefaultPageSize = 500
	computeMaxPageSize     = 500
)

// operationWaitLimit is how long operations.wait waits before answering
// with a still-running operation (Compute Engine waits up to two minutes;
// the sandbox answers sooner so that tests stay quick).
const operationWaitLimit = 2 * time.Second

// clusterTopologyID is the opaque physicalTopology.cluster of every block
// and sub-block of a reservation.
func clusterTopologyID(reservation string) string {
	return opaqueID("cluster", reservation)[:16]
}

// blockTopologyID is the opaque physicalTopology.block of a sub-block's
// block; GKE puts the same value on the node label
// cloud.google.com/gce-topology-block.
func blockTopologyID(s *subBlockState) string {
	return opaqueID("block", s.Reservation, s.Block)[:16]
}

// subBlockTopologyID is the opaque physicalTopology.subBlock of a
// sub-block; GKE puts the same value on the node label
// cloud.google.com/gce-topology-subblock.
func subBlockTopologyID(s *subBlockState) string {
	return opaqueID("subblock", s.Reservation, s.Block, s.Name)[:16]
}

// computeID is a stable numeric resource ID (Compute Engine IDs are
// uint64, written as decimal strings in JSON).
func computeID(parts ...string) string {
	n, _ := strconv.ParseUint(opaqueID(append([]string{"id"}, parts...)...)[:16], 16, 64)
	return strconv.FormatUint(n, 10)
}

// computeHandler serves the emulated Compute Engine API.
func (w *world) computeHandler() http.Handler {
	mux := http.NewServeMux()
	const (
		region   = "/compute/v1/projects/{project}/regions/{region}"
		zone     = "/compute/v1/projects/{project}/zones/{zone}"
		policies = region + "/resourcePolicies"
		res      = zone + "/reservations/{reservation}"
		blocks   = res + "/reservationBlocks"
		subs     = blocks + "/{block}/reservationSubBlocks"
	)
	handle := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, w.inComputeScope(h)) }
	handle("POST "+policies, w.insertResourcePolicy)
	handle("GET "+policies, w.listResourcePolicies)
	handle("GET "+policies+"/{name}", w.getResourcePolicy)
	handle("DELETE "+policies+"/{name}", w.deleteResourcePolicy)
	handle("GET "+region+"/operations/{operation}", w.getComputeOperation)
	handle("POST "+region+"/operations/{operation}/wait", w.waitComputeOperation)
	handle("GET "+zone+"/operations/{operation}", w.getComputeOperation)
	handle("POST "+zone+"/operations/{operation}/wait", w.waitComputeOperation)
	handle("GET "+zone+"/reservations", w.listReservations)
	handle("GET "+res, w.getReservation)
	handle("GET "+blocks, w.listReservationBlocks)
	handle("GET "+blocks+"/{block}", w.getReservationBlock)
	handle("GET "+subs, w.listReservationSubBlocks)
	handle("GET "+subs+"/{subBlock}", w.getReservationSubBlock)
	handle("GET /compute/v1/projects/{project}/aggregated/resourcePolicies", w.aggregatedResourcePolicies)
	handle("GET /compute/v1/projects/{project}/aggregated/reservations", w.aggregatedReservations)
	// Everything else, including a known path with another method.
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		writeGoogleError(rw, http.StatusNotFound, "NOT_FOUND",
			fmt.Sprintf("The sandbox's Compute Engine API does not serve %s %s", r.Method, r.URL.Path), "notFound")
	})
	return slashesUnescaped(mux)
}

// inComputeScope answers 404 unless the request names the inventory's
// project and, where the path has them, its region and zone.
func (w *world) inComputeScope(next http.HandlerFunc) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		if p := r.PathValue("project"); p != w.inv.Project {
			writeGoogleError(rw, http.StatusNotFound, "NOT_FOUND",
				fmt.Sprintf("The resource 'projects/%s' was not found (the sandbox project is %q)", p, w.inv.Project), "notFound")
			return
		}
		if strings.Contains(r.Pattern, "{region}") && r.PathValue("region") != w.inv.Region {
			writeGoogleError(rw, http.StatusNotFound, "NOT_FOUND",
				fmt.Sprintf("The resource 'projects/%s/regions/%s' was not found (the sandbox region is %q)", w.inv.Project, r.PathValue("region"), w.inv.Region), "notFound")
			return
		}
		if strings.Contains(r.Pattern, "{zone}") && r.PathValue("zone") != w.inv.Zone {
			writeGoogleError(rw, http.StatusNotFound, "NOT_FOUND",
				fmt.Sprintf("The resource 'projects/%s/zones/%s' was not found (the sandbox zone is %q)", w.inv.Project, r.PathValue("zone"), w.inv.Zone), "notFound")
			return
		}
		next(rw, r)
	}
}

func (w *world) regionLink() string {
	return computeLinkBase + "projects/" + w.inv.Project + "/regions/" + w.inv.Region
}

func (w *world) zoneLink() string {
	return computeLinkBase + "projects/" + w.inv.Project + "/zones/" + w.inv.Zone
}

// ---- Paging ----

// computePage cuts one page out of n items as maxResults and pageToken
// ask: it returns the range [from, to) and the next page token ("" on the
// last page), or an error message for a 400.
func computePage(r *http.Request, n int) (from, to int, next, errMsg string) {
	q := r.URL.Query()
	if q.Get("filter") != "" || q.Get("orderBy") != "" {
		return 0, 0, "", "The sandbox's Compute Engine API does not support filter or orderBy on lists; list everything and filter in the client"
	}
	size := computeDefaultPageSize
	if s := q.Get("maxResults"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return 0, 0, "", fmt.Sprintf("Invalid value for field 'maxResults': '%s'. Must be a non-negative integer", s)
		}
		if v > 0 {
			size = min(v, computeMaxPageSize)
		}
	}
	if t := q.Get("pageToken"); t != "" {
		v, err := strconv.Atoi(strings.TrimPrefix(t, "offset-"))
		if err != nil || !strings.HasPrefix(t, "offset-") || v < 0 || v > n {
			return 0, 0, "", fmt.Sprintf("Invalid value for field 'pageToken': '%s'. Use the nextPageToken of the previous page", t)
		}
		from = v
	}
	to = min(from+size, n)
	if to < n {
		next = "offset-" + strconv.Itoa(to)
	}
	return from, to, next, ""
}

// writeComputeList answers a list request with one page of items.
func writeComputeList[T any](rw http.ResponseWriter, r *http.Request, kind, selfLink string, items []T) {
	from, to, next, msg := computePage(r, len(items))
	if msg != "" {
		badRequest(rw, msg)
		return
	}
	out := map[string]any{
		"kind":     kind,
		"id":       computeID("list", selfLink),
		"selfLink": selfLink,
		"items":    items[from:to],
	}
	if next != "" {
		out["nextPageToken"] = next
	}
	writeJSON(rw, http.StatusOK, out)
}

// ---- Resource policies (workload policies) ----

// resourcePolicyJSON is a ResourcePolicy as the API writes it.
type resourcePolicyJSON struct {
	Kind              string              `json:"kind"`
	ID                string              `json:"id"`
	CreationTimestamp string              `json:"creationTimestamp"`
	Name              string              `json:"name"`
	Description       string              `json:"description,omitempty"`
	Region            string              `json:"region"`
	SelfLink          string              `json:"selfLink"`
	Status            string              `json:"status"`
	WorkloadPolicy    *workloadPolicyJSON `json:"workloadPolicy,omitempty"`
}

type workloadPolicyJSON struct {
	Type                    string `json:"type,omitempty"`
	AcceleratorTopology     string `json:"acceleratorTopology,omitempty"`
	AcceleratorTopologyMode string `json:"acceleratorTopologyMode,omitempty"`
	MaxTopologyDistance     string `json:"maxTopologyDistance,omitempty"`
}

func (w *world) policyPath(name string) string {
	return fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", w.inv.Project, w.inv.Region, name)
}

func (w *world) policyJSON(p *resourcePolicy) resourcePolicyJSON {
	return resourcePolicyJSON{
		Kind:              "compute#resourcePolicy",
		ID:                strconv.FormatUint(p.ID, 10),
		CreationTimestamp: p.Created.Format(computeTimeFormat),
		Name:              p.Name,
		Description:       p.Description,
		Region:            w.regionLink(),
		SelfLink:          computeLinkBase + w.policyPath(p.Name),
		Status:            "READY",
		WorkloadPolicy: &workloadPolicyJSON{
			Type:                    p.Type,
			AcceleratorTopology:     p.AcceleratorTopology,
			AcceleratorTopologyMode: p.AcceleratorTopologyMode,
			MaxTopologyDistance:     p.MaxTopologyDistance,
		},
	}
}

// rfc1035Name is the form of every Compute Engine resource name.
var rfc1035Name = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// acceleratorTopologyRE is an AxBxC chip topology such as 4x4x4.
var acceleratorTopologyRE = regexp.MustCompile(`^[1-9][0-9]{0,3}x[1-9][0-9]{0,3}x[1-9][0-9]{0,3}$`)

// Values of the workload policy enums (computepb.ResourcePolicyWorkloadPolicy).
var (
	workloadPolicyTypes      = []string{"HIGH_AVAILABILITY", "HIGH_THROUGHPUT"}
	acceleratorTopologyModes = []string{"AUTO_CONNECT", "PROVISION_ONLY"}
	maxTopologyDistances     = []string{"BLOCK", "CLUSTER", "SUBBLOCK"}
)

func oneOf(v string, values []string) bool {
	for _, x := range values {
		if v == x {
			return true
		}
	}
	return false
}

func invalidField(field, value, rule string) string {
	return fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. %s", field, value, rule)
}

// parseResourcePolicy reads and checks an insert request's body. It
// returns the policy, or a message for a 400 that names the field.
func (w *world) parseResourcePolicy(body []byte, region string) (*resourcePolicy, string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, "Invalid JSON payload received: " + err.Error()
	}
	var p resourcePolicy
	var wp *workloadPolicyJSON
	for key, raw := range fields {
		var err error
		switch key {
		case "name":
			err = json.Unmarshal(raw, &p.Name)
		case "description":
			err = json.Unmarshal(raw, &p.Description)
		case "region":
			var link string
			if err = json.Unmarshal(raw, &link); err == nil && link != "" && link[strings.LastIndex(link, "/")+1:] != region {
				return nil, invalidField("region", link, fmt.Sprintf("The policy is inserted in region %q; leave region empty or name that region", region))
			}
		case "workloadPolicy":
			dec := json.NewDecoder(strings.NewReader(string(raw)))
			dec.DisallowUnknownFields()
			wp = &workloadPolicyJSON{}
			if err = dec.Decode(wp); err != nil {
				return nil, fmt.Sprintf("Invalid value for field 'resource.workloadPolicy': %v", err)
			}
		case "kind", "id", "selfLink", "creationTimestamp", "status", "resourceStatus":
			// Output-only fields are ignored, as Compute Engine does.
		default:
			return nil, fmt.Sprintf("Invalid value for field 'resource.%s': the sandbox emulates workload policies only, so only name, description, region and workloadPolicy can be set", key)
		}
		if err != nil {
			return nil, fmt.Sprintf("Invalid value for field 'resource.%s': %v", key, err)
		}
	}
	switch {
	case p.Name == "":
		return nil, "Required field 'resource.name' not specified"
	case !rfc1035Name.MatchString(p.Name):
		return nil, invalidField("name", p.Name, "Must be a match of regex '[a-z]([-a-z0-9]{0,61}[a-z0-9])?' (RFC 1035: 1-63 characters, "+
			"a lowercase letter first, then lowercase letters, digits and hyphens, not ending with a hyphen)")
	case len(p.Description) > 2048:
		return nil, invalidField("description", p.Description[:32]+"...", "Must be at most 2048 characters")
	case wp == nil:
		return nil, "Required field 'resource.workloadPolicy' not specified: the sandbox emulates workload policies only"
	}
	if msg := checkWorkloadPolicy(wp); msg != "" {
		return nil, msg
	}
	p.Region = region
	p.Type, p.AcceleratorTopology, p.AcceleratorTopologyMode, p.MaxTopologyDistance =
		wp.Type, wp.AcceleratorTopology, wp.AcceleratorTopologyMode, wp.MaxTopologyDistance
	return &p, ""
}

// checkWorkloadPolicy applies the documented rules of workload policies
// (gcloud compute resource-policies create workload-policy): type is
// required; acceleratorTopology and maxTopologyDistance are for
// HIGH_THROUGHPUT only and exclude each other; acceleratorTopologyMode
// (AUTO_CONNECT by default) cannot go with maxTopologyDistance, and
// PROVISION_ONLY needs an acceleratorTopology.
func checkWorkloadPolicy(wp *workloadPolicyJSON) string {
	const f = "workloadPolicy."
	switch {
	case wp.Type == "":
		return "Required field 'resource.workloadPolicy.type' not specified: set " + strings.Join(workloadPolicyTypes, " or ")
	case !oneOf(wp.Type, workloadPolicyTypes):
		return invalidField(f+"type", wp.Type, "Must be one of "+strings.Join(workloadPolicyTypes, ", "))
	case wp.AcceleratorTopology != "" && wp.Type != "HIGH_THROUGHPUT":
		return invalidField(f+"acceleratorTopology", wp.AcceleratorTopology, "It can be set only when workloadPolicy.type is HIGH_THROUGHPUT")
	case wp.AcceleratorTopology != "" && !acceleratorTopologyRE.MatchString(wp.AcceleratorTopology):
		return invalidField(f+"acceleratorTopology", wp.AcceleratorTopology, "Must be a chip topology of the form AxBxC, for example 4x4x4")
	case wp.MaxTopologyDistance != "" && wp.Type != "HIGH_THROUGHPUT":
		return invalidField(f+"maxTopologyDistance", wp.MaxTopologyDistance, "It can be set only when workloadPolicy.type is HIGH_THROUGHPUT")
	case wp.MaxTopologyDistance != "" && wp.AcceleratorTopology != "":
		return invalidField(f+"maxTopologyDistance", wp.MaxTopologyDistance, "It cannot be set together with workloadPolicy.acceleratorTopology; set one of them")
	case wp.MaxTopologyDistance != "" && !oneOf(wp.MaxTopologyDistance, maxTopologyDistances):
		return invalidField(f+"maxTopologyDistance", wp.MaxTopologyDistance, "Must be one of "+strings.Join(maxTopologyDistances, ", "))
	case wp.AcceleratorTopologyMode != "" && !oneOf(wp.AcceleratorTopologyMode, acceleratorTopologyModes):
		return invalidField(f+"acceleratorTopologyMode", wp.AcceleratorTopologyMode, "Must be one of "+strings.Join(acceleratorTopologyModes, ", "))
	case wp.AcceleratorTopologyMode != "" && wp.MaxTopologyDistance != "":
		return invalidField(f+"acceleratorTopologyMode", wp.AcceleratorTopologyMode, "It cannot be set together with workloadPolicy.maxTopologyDistance")
	case wp.AcceleratorTopologyMode == "PROVISION_ONLY" && wp.AcceleratorTopology == "":
		return invalidField(f+"acceleratorTopologyMode", wp.AcceleratorTopologyMode, "PROVISION_ONLY needs workloadPolicy.acceleratorTopology, for example 4x4x4")
	}
	return ""
}

func (w *world) insertResourcePolicy(rw http.ResponseWriter, r *http.Request) {
	region := r.PathValue("region")
	body, err := readBody(rw, r)
	if err != nil {
		badRequest(rw, "Reading the request body: "+err.Error())
		return
	}
	p, msg := w.parseResourcePolicy(body, region)
	if p == nil {
		badRequest(rw, msg)
		return
	}
	p.ID = rand.Uint64()
	p.Created = time.Now()
	key := region + "/" + p.Name
	path := w.policyPath(p.Name)
	exists := fmt.Sprintf("The resource '%s' already exists", path)
	w.mu.Lock()
	_, found := w.policies[key]
	w.mu.Unlock()
	if found {
		conflict(rw, exists)
		return
	}
	op := w.startOperation("compute", "insert", "regions/"+region, computeLinkBase+path, func() *opError {
		w.mu.Lock()
		defer w.mu.Unlock()
		// Another insert of the same name may have finished first.
		if _, found := w.policies[key]; found {
			return &opError{Code: http.StatusConflict, Message: exists}
		}
		w.policies[key] = p
		return nil
	})
	w.writeComputeOperation(rw, op)
}

func (w *world) getResourcePolicy(rw http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	w.mu.Lock()
	p, ok := w.policies[r.PathValue("region")+"/"+name]
	var out resourcePolicyJSON
	if ok {
		out = w.policyJSON(p)
	}
	w.mu.Unlock()
	if !ok {
		notFound(rw, w.policyPath(name))
		return
	}
	writeJSON(rw, http.StatusOK, out)
}

func (w *world) listResourcePolicies(rw http.ResponseWriter, r *http.Request) {
	items := w.regionPolicies(r.PathValue("region"))
	writeComputeList(rw, r, "compute#resourcePolicyList", w.regionLink()+"/resourcePolicies", items)
}

// regionPolicies renders the region's policies, sorted by name.
func (w *world) regionPolicies(region string) []resourcePolicyJSON {
	w.mu.Lock()
	items := []resourcePolicyJSON{}
	for _, p := range w.policies {
		if p.Region == region {
			items = append(items, w.policyJSON(p))
		}
	}
	w.mu.Unlock()
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items
}

func (w *world) deleteResourcePolicy(rw http.ResponseWriter, r *http.Request) {
	region, name := r.PathValue("region"), r.PathValue("name")
	key := region + "/" + name
	path := w.policyPath(name)
	w.mu.Lock()
	_, ok := w.policies[key]
	var users []string
	for _, pool := range w.nodePools {
		if pool.PolicyName[strings.LastIndex(pool.PolicyName, "/")+1:] == name {
			users = append(users, fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", w.inv.Project, w.inv.Region, w.inv.Cluster, pool.Name))
		}
	}
	w.mu.Unlock()
	switch {
	case !ok:
		notFound(rw, path)
		return
	case len(users) > 0:
		sort.Strings(users)
		writeGoogleError(rw, http.StatusBadRequest, "FAILED_PRECONDITION",
			fmt.Sprintf("The resource_policy resource '%s' is already being used by '%s'; delete the node pools that use it first", path, strings.Join(users, "', '")),
			"resourceInUseByAnotherResource")
		return
	}
	op := w.startOperation("compute", "delete", "regions/"+region, computeLinkBase+path, func() *opError {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.policies, key)
		return nil
	})
	w.writeComputeOperation(rw, op)
}

// readBody reads a request body of at most 1 MiB.
func readBody(rw http.ResponseWriter, r *http.Request) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(rw, r.Body, 1<<20))
}

// ---- Operations ----

// operationErrorJSON is Operation.error.
type operationErrorJSON struct {
	Errors []operationErrorItemJSON `json:"errors"`
}

type operationErrorItemJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// operationJSON is an Operation as the API writes it.
type operationJSON struct {
	Kind                string              `json:"kind"`
	ID                  string              `json:"id"`
	Name                string              `json:"name"`
	OperationType       string              `json:"operationType"`
	Status              string              `json:"status"`
	Progress            int                 `json:"progress"`
	TargetLink          string              `json:"targetLink"`
	SelfLink            string              `json:"selfLink"`
	Region              string              `json:"region,omitempty"`
	Zone                string              `json:"zone,omitempty"`
	InsertTime          string              `json:"insertTime"`
	StartTime           string              `json:"startTime"`
	EndTime             string              `json:"endTime,omitempty"`
	Error               *operationErrorJSON `json:"error,omitempty"`
	HTTPErrorStatusCode int                 `json:"httpErrorStatusCode,omitempty"`
	HTTPErrorMessage    string              `json:"httpErrorMessage,omitempty"`
}

// computeErrorCodes are the Operation.error codes Compute Engine gives
// for HTTP statuses.
var computeErrorCodes = map[int]string{
	http.StatusBadRequest:          "INVALID_USAGE",
	http.StatusNotFound:            "RESOURCE_NOT_FOUND",
	http.StatusConflict:            "RESOURCE_ALREADY_EXISTS",
	http.StatusTooManyRequests:     "RATE_LIMIT_EXCEEDED",
	http.StatusInternalServerError: "INTERNAL_ERROR",
	http.StatusServiceUnavailable:  "UNAVAILABLE",
}

// operationJSON renders a compute operation. Callers hold w.mu.
func (w *world) operationJSON(op *operation) operationJSON {
	scopeLink := computeLinkBase + "projects/" + w.inv.Project + "/" + op.Scope
	out := operationJSON{
		Kind:          "compute#operation",
		ID:            computeID("operation", op.Name),
		Name:          op.Name,
		OperationType: op.Type,
		Status:        "RUNNING",
		TargetLink:    op.TargetLink,
		SelfLink:      scopeLink + "/operations/" + op.Name,
		InsertTime:    op.Started.Format(computeTimeFormat),
		StartTime:     op.Started.Format(computeTimeFormat),
	}
	if strings.HasPrefix(op.Scope, "zones/") {
		out.Zone = scopeLink
	} else {
		out.Region = scopeLink
	}
	if op.Done {
		out.Status, out.Progress, out.EndTime = "DONE", 100, op.Ended.Format(computeTimeFormat)
		if op.ErrCode != 0 {
			code := computeErrorCodes[op.ErrCode]
			if code == "" {
				code = "INTERNAL_ERROR"
			}
			out.Error = &operationErrorJSON{Errors: []operationErrorItemJSON{{Code: code, Message: op.ErrMessage}}}
			out.HTTPErrorStatusCode = op.ErrCode
			out.HTTPErrorMessage = strings.ToUpper(http.StatusText(op.ErrCode))
		}
	}
	return out
}

func (w *world) writeComputeOperation(rw http.ResponseWriter, op *operation) {
	w.mu.Lock()
	out := w.operationJSON(op)
	w.mu.Unlock()
	writeJSON(rw, http.StatusOK, out)
}

// findComputeOperation returns the named compute operation of the
// request's region or zone, or nil.
func (w *world) findComputeOperation(r *http.Request) *operation {
	scope := "regions/" + r.PathValue("region")
	if strings.Contains(r.Pattern, "{zone}") {
		scope = "zones/" + r.PathValue("zone")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	op, ok := w.ops[r.PathValue("operation")]
	if !ok || op.API != "compute" || op.Scope != scope {
		return nil
	}
	return op
}

func (w *world) operationDone(op *operation) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return op.Done
}

func (w *world) getComputeOperation(rw http.ResponseWriter, r *http.Request) {
	op := w.findComputeOperation(r)
	if op == nil {
		notFound(rw, r.URL.Path[strings.Index(r.URL.Path, "projects/"):])
		return
	}
	w.writeComputeOperation(rw, op)
}

// waitComputeOperation answers when the operation is done, or after
// operationWaitLimit with the operation still running, as
// operations.wait does.
func (w *world) waitComputeOperation(rw http.ResponseWriter, r *http.Request) {
	op := w.findComputeOperation(r)
	if op == nil {
		notFound(rw, strings.TrimSuffix(r.URL.Path[strings.Index(r.URL.Path, "projects/"):], "/wait"))
		return
	}
	deadline := time.NewTimer(operationWaitLimit)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !w.operationDone(op) {
		select {
		case <-tick.C:
		case <-deadline.C:
			w.writeComputeOperation(rw, op)
			return
		case <-r.Context().Done():
			return
		}
	}
	w.writeComputeOperation(rw, op)
}

// ---- Reservations, blocks and sub-blocks ----

// allocationJSON is Reservation.specificReservation (int64 counts are
// strings in JSON).
type allocationJSON struct {
	Count              string `json:"count"`
	InUseCount         string `json:"inUseCount"`
	InstanceProperties struct {
		MachineType string `json:"machineType"`
	} `json:"instanceProperties"`
}

type reservationJSON struct {
	Kind                        string         `json:"kind"`
	ID                          string         `json:"id"`
	Name                        string         `json:"name"`
	SelfLink                    string         `json:"selfLink"`
	Zone                        string         `json:"zone"`
	Status                      string         `json:"status"`
	SpecificReservationRequired bool           `json:"specificReservationRequired"`
	DeploymentType              string         `json:"deploymentType"`
	SpecificReservation         allocationJSON `json:"specificReservation"`
}

type blockHealthJSON struct {
	HealthStatus          string `json:"healthStatus"`
	HealthySubBlockCount  int    `json:"healthySubBlockCount"`
	DegradedSubBlockCount int    `json:"degradedSubBlockCount"`
}

type blockTopologyJSON struct {
	Cluster string `json:"cluster"`
	Block   string `json:"block"`
}

type reservationBlockJSON struct {
	Kind                          string            `json:"kind"`
	ID                            string            `json:"id"`
	Name                          string            `json:"name"`
	SelfLink                      string            `json:"selfLink"`
	Zone                          string            `json:"zone"`
	Status                        string            `json:"status"`
	Count                         int               `json:"count"`
	InUseCount                    int               `json:"inUseCount"`
	ReservationSubBlockCount      int               `json:"reservationSubBlockCount"`
	ReservationSubBlockInUseCount int               `json:"reservationSubBlockInUseCount"`
	PhysicalTopology              blockTopologyJSON `json:"physicalTopology"`
	HealthInfo                    blockHealthJSON   `json:"healthInfo"`
}

type subBlockHealthJSON struct {
	HealthStatus      string `json:"healthStatus"`
	HealthyHostCount  int    `json:"healthyHostCount"`
	DegradedHostCount int    `json:"degradedHostCount"`
}

type subBlockTopologyJSON struct {
	Cluster  string `json:"cluster"`
	Block    string `json:"block"`
	SubBlock string `json:"subBlock"`
}

type reservationSubBlockJSON struct {
	Kind             string               `json:"kind"`
	ID               string               `json:"id"`
	Name             string               `json:"name"`
	SelfLink         string               `json:"selfLink"`
	Zone             string               `json:"zone"`
	Status           string               `json:"status"`
	Count            int                  `json:"count"`
	InUseCount       int                  `json:"inUseCount"`
	PhysicalTopology subBlockTopologyJSON `json:"physicalTopology"`
	HealthInfo       subBlockHealthJSON   `json:"healthInfo"`
}

func (w *world) findReservation(name string) *Reservation {
	for i := range w.inv.Reservations {
		if w.inv.Reservations[i].Name == name {
			return &w.inv.Reservations[i]
		}
	}
	return nil
}

func (w *world) reservationPath(name string) string {
	return fmt.Sprintf("projects/%s/zones/%s/reservations/%s", w.inv.Project, w.inv.Zone, name)
}

// inUseHosts counts the hosts of occupied sub-blocks. Callers hold w.mu.
func inUseHosts(subs []*subBlockState) (hosts, subBlocks int) {
	for _, s := range subs {
		if s.NodePool != "" {
			hosts += HostsPerSubBlock
			subBlocks++
		}
	}
	return hosts, subBlocks
}

// reservationJSON renders a reservation. Callers hold w.mu.
func (w *world) reservationJSON(res *Reservation) reservationJSON {
	var subs []*subBlockState
	for _, b := range res.Blocks {
		subs = append(subs, w.subBlocksOf(res.Name, b.Name)...)
	}
	inUse, _ := inUseHosts(subs)
	out := reservationJSON{
		Kind:                        "compute#reservation",
		ID:                          computeID("reservation", res.Name),
		Name:                        res.Name,
		SelfLink:                    computeLinkBase + w.reservationPath(res.Name),
		Zone:                        w.zoneLink(),
		Status:                      "READY",
		SpecificReservationRequired: true,
		DeploymentType:              "DENSE",
		SpecificReservation: allocationJSON{
			Count:      strconv.Itoa(len(subs) * HostsPerSubBlock),
			InUseCount: strconv.Itoa(inUse),
		},
	}
	out.SpecificReservation.InstanceProperties.MachineType = MachineType
	return out
}

// blockJSON renders a reservation block. Its health sums its sub-blocks':
// HEALTHY when all are healthy, UNHEALTHY when all are unhealthy, else
// DEGRADED; degradedSubBlockCount counts every sub-block that is not
// healthy (the API has no separate unhealthy count). Callers hold w.mu.
func (w *world) blockJSON(res string, b *Block) reservationBlockJSON {
	subs := w.subBlocksOf(res, b.Name)
	inUse, subsInUse := inUseHosts(subs)
	health := blockHealthJSON{HealthStatus: "HEALTHY"}
	unhealthy := 0
	for _, s := range subs {
		switch s.health() {
		case HostHealthy:
			health.HealthySubBlockCount++
		case HostUnhealthy:
			unhealthy++
			health.DegradedSubBlockCount++
		default:
			health.DegradedSubBlockCount++
		}
	}
	switch {
	case len(subs) > 0 && unhealthy == len(subs):
		health.HealthStatus = "UNHEALTHY"
	case health.DegradedSubBlockCount > 0:
		health.HealthStatus = "DEGRADED"
	}
	key := &subBlockState{Reservation: res, Block: b.Name}
	return reservationBlockJSON{
		Kind:                          "compute#reservationBlock",
		ID:                            computeID("block", res, b.Name),
		Name:                          b.Name,
		SelfLink:                      computeLinkBase + w.reservationPath(res) + "/reservationBlocks/" + b.Name,
		Zone:                          w.zoneLink(),
		Status:                        "READY",
		Count:                         len(subs) * HostsPerSubBlock,
		InUseCount:                    inUse,
		ReservationSubBlockCount:      len(subs),
		ReservationSubBlockInUseCount: subsInUse,
		PhysicalTopology:              blockTopologyJSON{Cluster: clusterTopologyID(res), Block: blockTopologyID(key)},
		HealthInfo:                    health,
	}
}

// subBlockJSON renders a sub-block. degradedHostCount counts every host
// that is not healthy, so that healthy + degraded is the host count;
// healthStatus tells DEGRADED from UNHEALTHY. Callers hold w.mu.
func (w *world) subBlockJSON(s *subBlockState) reservationSubBlockJSON {
	healthy, degraded, unhealthy := s.count()
	inUse := 0
	if s.NodePool != "" {
		inUse = HostsPerSubBlock
	}
	return reservationSubBlockJSON{
		Kind:       "compute#reservationSubBlock",
		ID:         computeID("subblock", s.Reservation, s.Block, s.Name),
		Name:       s.Name,
		SelfLink:   computeLinkBase + w.reservationPath(s.Reservation) + "/reservationBlocks/" + s.Block + "/reservationSubBlocks/" + s.Name,
		Zone:       w.zoneLink(),
		Status:     "READY",
		Count:      HostsPerSubBlock,
		InUseCount: inUse,
		PhysicalTopology: subBlockTopologyJSON{
			Cluster:  clusterTopologyID(s.Reservation),
			Block:    blockTopologyID(s),
			SubBlock: subBlockTopologyID(s),
		},
		HealthInfo: subBlockHealthJSON{HealthStatus: s.health(), HealthyHostCount: healthy, DegradedHostCount: degraded + unhealthy},
	}
}

func (w *world) listReservations(rw http.ResponseWriter, r *http.Request) {
	writeComputeList(rw, r, "compute#reservationList", w.zoneLink()+"/reservations", w.zoneReservations())
}

// zoneReservations renders the reservations of the sandbox's zone, in
// inventory order.
func (w *world) zoneReservations() []reservationJSON {
	w.mu.Lock()
	defer w.mu.Unlock()
	items := make([]reservationJSON, 0, len(w.inv.Reservations))
	for i := range w.inv.Reservations {
		items = append(items, w.reservationJSON(&w.inv.Reservations[i]))
	}
	return items
}

func (w *world) getReservation(rw http.ResponseWriter, r *http.Request) {
	name := r.PathValue("reservation")
	res := w.findReservation(name)
	if res == nil {
		notFound(rw, w.reservationPath(name))
		return
	}
	w.mu.Lock()
	out := w.reservationJSON(res)
	w.mu.Unlock()
	writeJSON(rw, http.StatusOK, out)
}

// requestBlock finds the reservation and block a request names, or
// answers 404 and returns nil.
func (w *world) requestBlock(rw http.ResponseWriter, r *http.Request) (*Reservation, *Block) {
	name := r.PathValue("reservation")
	res := w.findReservation(name)
	if res == nil {
		notFound(rw, w.reservationPath(name))
		return nil, nil
	}
	if !strings.Contains(r.Pattern, "{block}") {
		return res, nil
	}
	block := r.PathValue("block")
	for i := range res.Blocks {
		if res.Blocks[i].Name == block {
			return res, &res.Blocks[i]
		}
	}
	notFound(rw, w.reservationPath(name)+"/reservationBlocks/"+block)
	return nil, nil
}

func (w *world) listReservationBlocks(rw http.ResponseWriter, r *http.Request) {
	res, _ := w.requestBlock(rw, r)
	if res == nil {
		return
	}
	w.mu.Lock()
	items := make([]reservationBlockJSON, 0, len(res.Blocks))
	for i := range res.Blocks {
		items = append(items, w.blockJSON(res.Name, &res.Blocks[i]))
	}
	w.mu.Unlock()
	writeComputeList(rw, r, "compute#reservationBlock", computeLinkBase+w.reservationPath(res.Name)+"/reservationBlocks", items)
}

func (w *world) getReservationBlock(rw http.ResponseWriter, r *http.Request) {
	res, block := w.requestBlock(rw, r)
	if block == nil {
		return
	}
	w.mu.Lock()
	out := w.blockJSON(res.Name, block)
	w.mu.Unlock()
	writeJSON(rw, http.StatusOK, map[string]any{"resource": out})
}

func (w *world) listReservationSubBlocks(rw http.ResponseWriter, r *http.Request) {
	res, block := w.requestBlock(rw, r)
	if block == nil {
		return
	}
	w.mu.Lock()
	subs := w.subBlocksOf(res.Name, block.Name)
	items := make([]reservationSubBlockJSON, 0, len(subs))
	for _, s := range subs {
		items = append(items, w.subBlockJSON(s))
	}
	w.mu.Unlock()
	writeComputeList(rw, r, "compute#reservationSubBlock",
		computeLinkBase+w.reservationPath(res.Name)+"/reservationBlocks/"+block.Name+"/reservationSubBlocks", items)
}

func (w *world) getReservationSubBlock(rw http.ResponseWriter, r *http.Request) {
	res, block := w.requestBlock(rw, r)
	if block == nil {
		return
	}
	name := r.PathValue("subBlock")
	w.mu.Lock()
	s := w.findSubBlock(res.Name, block.Name, name)
	var out reservationSubBlockJSON
	if s != nil {
		out = w.subBlockJSON(s)
	}
	w.mu.Unlock()
	if s == nil {
		notFound(rw, w.reservationPath(res.Name)+"/reservationBlocks/"+block.Name+"/reservationSubBlocks/"+name)
		return
	}
	writeJSON(rw, http.StatusOK, map[string]any{"resource": out})
}
