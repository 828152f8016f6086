package computeapi

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

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

func (w *API) policyPath(name string) string {
	return fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", w.Inv.Project, w.Inv.Region, name)
}

func (w *API) policyJSON(p *cloud.ResourcePolicy) resourcePolicyJSON {
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
func (w *API) parseResourcePolicy(body []byte, region string) (*cloud.ResourcePolicy, string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, "Invalid JSON payload received: " + err.Error()
	}
	var p cloud.ResourcePolicy
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
			// acceptBody has refused the fields no API version defines and
			// dropped the null ones: what is left is another kind of policy.
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

func (w *API) insertResourcePolicy(rw http.ResponseWriter, r *http.Request) {
	region := r.PathValue("region")
	body, ok := googleapi.AcceptBody(rw, r, resourcePolicyInsert)
	if !ok {
		return
	}
	p, msg := w.parseResourcePolicy(body, region)
	if p == nil {
		googleapi.BadRequest(rw, msg)
		return
	}
	p.ID = rand.Uint64()
	p.Created = time.Now()
	key := region + "/" + p.Name
	path := w.policyPath(p.Name)
	exists := fmt.Sprintf("The resource '%s' already exists", path)
	w.Mu.Lock()
	_, found := w.Policies[key]
	w.Mu.Unlock()
	if found {
		googleapi.Conflict(rw, exists)
		return
	}
	op := w.StartOperation("compute", "insert", "regions/"+region, computeLinkBase+path, func() *cloud.OpError {
		w.Mu.Lock()
		defer w.Mu.Unlock()
		// Another insert of the same name may have finished first.
		if _, found := w.Policies[key]; found {
			return &cloud.OpError{Code: http.StatusConflict, Message: exists}
		}
		w.Policies[key] = p
		return nil
	})
	w.writeComputeOperation(rw, op)
}

func (w *API) getResourcePolicy(rw http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	w.Mu.Lock()
	p, ok := w.Policies[r.PathValue("region")+"/"+name]
	var out resourcePolicyJSON
	if ok {
		out = w.policyJSON(p)
	}
	w.Mu.Unlock()
	if !ok {
		googleapi.NotFound(rw, w.policyPath(name))
		return
	}
	googleapi.WriteJSON(rw, http.StatusOK, out)
}

func (w *API) listResourcePolicies(rw http.ResponseWriter, r *http.Request) {
	items := w.regionPolicies(r.PathValue("region"))
	writeComputeList(rw, r, "compute#resourcePolicyList", w.regionLink()+"/resourcePolicies", items)
}

// regionPolicies renders the region's policies, sorted by name.
func (w *API) regionPolicies(region string) []resourcePolicyJSON {
	w.Mu.Lock()
	items := []resourcePolicyJSON{}
	for _, p := range w.Policies {
		if p.Region == region {
			items = append(items, w.policyJSON(p))
		}
	}
	w.Mu.Unlock()
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items
}

func (w *API) deleteResourcePolicy(rw http.ResponseWriter, r *http.Request) {
	region, name := r.PathValue("region"), r.PathValue("name")
	key := region + "/" + name
	path := w.policyPath(name)
	w.Mu.Lock()
	_, ok := w.Policies[key]
	var users []string
	for _, pool := range w.NodePools {
		if pool.PolicyName[strings.LastIndex(pool.PolicyName, "/")+1:] == name {
			users = append(users, fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", w.Inv.Project, w.Inv.Region, w.Inv.Cluster, pool.Name))
		}
	}
	w.Mu.Unlock()
	switch {
	case !ok:
		googleapi.NotFound(rw, path)
		return
	case len(users) > 0:
		sort.Strings(users)
		googleapi.WriteError(rw, http.StatusBadRequest, "FAILED_PRECONDITION",
			fmt.Sprintf("The resource_policy resource '%s' is already being used by '%s'; delete the node pools that use it first", path, strings.Join(users, "', '")),
			"resourceInUseByAnotherResource")
		return
	}
	op := w.StartOperation("compute", "delete", "regions/"+region, computeLinkBase+path, func() *cloud.OpError {
		w.Mu.Lock()
		defer w.Mu.Unlock()
		delete(w.Policies, key)
		return nil
	})
	w.writeComputeOperation(rw, op)
}
