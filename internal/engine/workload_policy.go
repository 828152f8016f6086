package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// Workload policy values, as the Compute API spells them. The provider's
// schema documentation and validators are built from these lists.
var (
	WorkloadPolicyTypes = []string{"HIGH_THROUGHPUT", "HIGH_AVAILABILITY"}
	TopologyModes       = []string{"PROVISION_ONLY", "AUTO_CONNECT"}
)

// ResourceNameRE is the RFC 1035 name Compute Engine resources take.
var ResourceNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)

// WorkloadPolicySpec is a workload policy as the user declares it.
type WorkloadPolicySpec struct {
	Project, Region, Name, Description string
	Type                               string
	AcceleratorTopology                string
	AcceleratorTopologyMode            string
}

// WorkloadPolicy is a workload policy as Compute Engine reports it.
type WorkloadPolicy struct {
	WorkloadPolicySpec
	ID       string
	SelfLink string
}

// Path is the policy's relative resource name, its Terraform ID.
func (s WorkloadPolicySpec) Path() string {
	return fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", s.Project, s.Region, s.Name)
}

// Workload policy values dynamic slicing uses.
const (
	PolicyHighThroughput = "HIGH_THROUGHPUT"
	PolicyProvisionOnly  = "PROVISION_ONLY"
)

// WithDefaults fills the documented defaults of dynamic slicing into the
// spec's empty fields: type HIGH_THROUGHPUT; with it, accelerator topology
// 4x4x4; with a topology, mode PROVISION_ONLY.
func (s WorkloadPolicySpec) WithDefaults() WorkloadPolicySpec {
	if s.Type == "" {
		s.Type = PolicyHighThroughput
	}
	if s.AcceleratorTopology == "" && s.Type == PolicyHighThroughput {
		s.AcceleratorTopology = topology.PartitionTopology
	}
	if s.AcceleratorTopologyMode == "" && s.AcceleratorTopology != "" {
		s.AcceleratorTopologyMode = PolicyProvisionOnly
	}
	return s
}

// CheckDynamicSlicing applies dynamic slicing's rule on top of the policy's
// own: PROVISION_ONLY provisions one 4x4x4 sub-block per node pool, so
// that mode takes the 4x4x4 accelerator topology only.
func CheckDynamicSlicing(s WorkloadPolicySpec) error {
	if s.AcceleratorTopology != "" && s.AcceleratorTopologyMode == PolicyProvisionOnly && s.AcceleratorTopology != topology.PartitionTopology {
		return fmt.Errorf("accelerator_topology %q with PROVISION_ONLY: dynamic slicing provisions one 4x4x4 sub-block per node pool; use %q",
			s.AcceleratorTopology, topology.PartitionTopology)
	}
	return nil
}

// CheckWorkloadPolicy applies the documented rules of a workload policy:
// an RFC 1035 name, a known type, an accelerator topology only with
// HIGH_THROUGHPUT, and PROVISION_ONLY only with an accelerator topology.
func CheckWorkloadPolicy(s WorkloadPolicySpec) error {
	if !ResourceNameRE.MatchString(s.Name) {
		return fmt.Errorf("name %q must be 1-63 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen", s.Name)
	}
	if !contains(WorkloadPolicyTypes, s.Type) {
		return fmt.Errorf("type %q must be one of %s", s.Type, strings.Join(WorkloadPolicyTypes, ", "))
	}
	if s.AcceleratorTopologyMode != "" && !contains(TopologyModes, s.AcceleratorTopologyMode) {
		return fmt.Errorf("accelerator_topology_mode %q must be one of %s", s.AcceleratorTopologyMode, strings.Join(TopologyModes, ", "))
	}
	if s.AcceleratorTopology != "" && s.Type != "HIGH_THROUGHPUT" {
		return fmt.Errorf("accelerator_topology %q is only allowed with type HIGH_THROUGHPUT, not %s; set type = \"HIGH_THROUGHPUT\" or remove the topology", s.AcceleratorTopology, s.Type)
	}
	if s.AcceleratorTopologyMode == "PROVISION_ONLY" && s.AcceleratorTopology == "" {
		return errors.New(`accelerator_topology_mode PROVISION_ONLY needs an accelerator_topology; dynamic slicing uses "4x4x4"`)
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// CreateWorkloadPolicy inserts the policy and waits for the operation.
func (e *Engine) CreateWorkloadPolicy(ctx context.Context, s WorkloadPolicySpec) (*WorkloadPolicy, error) {
	if err := CheckWorkloadPolicy(s); err != nil {
		return nil, err
	}
	wp := &computepb.ResourcePolicyWorkloadPolicy{Type: proto.String(s.Type)}
	if s.AcceleratorTopology != "" {
		wp.AcceleratorTopology = proto.String(s.AcceleratorTopology)
	}
	if s.AcceleratorTopologyMode != "" {
		wp.AcceleratorTopologyMode = proto.String(s.AcceleratorTopologyMode)
	}
	policy := &computepb.ResourcePolicy{Name: proto.String(s.Name), WorkloadPolicy: wp}
	if s.Description != "" {
		policy.Description = proto.String(s.Description)
	}
	tflog.Info(ctx, "Creating workload policy", map[string]any{"policy": s.Path(), "type": s.Type, "topology": s.AcceleratorTopology, "mode": s.AcceleratorTopologyMode})
	op, err := e.compute.InsertResourcePolicy(ctx, s.Project, s.Region, policy)
	if err := e.waitCompute(ctx, op, err); err != nil {
		if !kernel.ConflictAfterRetry(err) {
			return nil, fmt.Errorf("creating workload policy %s: %s", s.Path(), kernel.APIMessage(err))
		}
		return e.adoptWorkloadPolicy(ctx, s)
	}
	return e.ReadWorkloadPolicy(ctx, s.Project, s.Region, s.Name)
}

// adoptWorkloadPolicy takes the policy that a retried insert found made
// by its first attempt, when it is the policy asked for.
func (e *Engine) adoptWorkloadPolicy(ctx context.Context, s WorkloadPolicySpec) (*WorkloadPolicy, error) {
	got, err := e.ReadWorkloadPolicy(ctx, s.Project, s.Region, s.Name)
	if err != nil {
		return nil, fmt.Errorf("creating workload policy %s: a retried insert found it existing, but %w", s.Path(), err)
	}
	if got.Type != s.Type || got.AcceleratorTopology != s.AcceleratorTopology || got.AcceleratorTopologyMode != s.AcceleratorTopologyMode {
		return nil, fmt.Errorf("creating workload policy %s: a retried insert found a policy of that name that is not the one asked for "+
			"(type %s, topology %s, mode %s); it was not adopted: import it or choose another name",
			s.Path(), got.Type, got.AcceleratorTopology, got.AcceleratorTopologyMode)
	}
	tflog.Warn(ctx, "Adopted workload policy: the insert was applied, its answer was lost, and the retry found the policy", map[string]any{"policy": s.Path()})
	return got, nil
}

// ReadWorkloadPolicy returns the policy, or ErrNotFound.
func (e *Engine) ReadWorkloadPolicy(ctx context.Context, project, region, name string) (*WorkloadPolicy, error) {
	p, err := e.compute.GetResourcePolicy(ctx, project, region, name)
	if kernel.IsNotFound(err) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading workload policy projects/%s/regions/%s/resourcePolicies/%s: %s", project, region, name, kernel.APIMessage(err))
	}
	return workloadPolicyOf(project, region, p), nil
}

// DeleteWorkloadPolicy deletes the policy and waits; a policy already gone
// is not an error.
func (e *Engine) DeleteWorkloadPolicy(ctx context.Context, project, region, name string) error {
	tflog.Info(ctx, "Deleting workload policy", map[string]any{"policy": fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", project, region, name)})
	op, err := e.compute.DeleteResourcePolicy(ctx, project, region, name)
	err = e.waitCompute(ctx, op, err)
	if err != nil && !kernel.IsNotFound(err) {
		return fmt.Errorf("deleting workload policy projects/%s/regions/%s/resourcePolicies/%s: %s", project, region, name, kernel.APIMessage(err))
	}
	return nil
}

var policyPathRE = regexp.MustCompile(`(?:^|/)projects/([^/]+)/regions/([^/]+)/resourcePolicies/([^/]+)$`)

// ParseWorkloadPolicyID reads a self link, a projects/P/regions/R/
// resourcePolicies/N path, or a bare name (with the default project and
// region).
func ParseWorkloadPolicyID(id, defaultProject, defaultRegion string) (project, region, name string, err error) {
	if m := policyPathRE.FindStringSubmatch(id); m != nil {
		return m[1], m[2], m[3], nil
	}
	if ResourceNameRE.MatchString(id) {
		if defaultProject == "" || defaultRegion == "" {
			return "", "", "", fmt.Errorf("%q is a bare name, but the provider has no default project and region (location); use projects/P/regions/R/resourcePolicies/N", id)
		}
		return defaultProject, defaultRegion, id, nil
	}
	return "", "", "", fmt.Errorf("%q is not a workload policy: use a self link, projects/P/regions/R/resourcePolicies/N, or a name", id)
}

// RegionOf returns the region of a location: a zone's region, or the
// location itself.
func RegionOf(location string) string {
	parts := strings.Split(location, "-")
	if len(parts) == 3 && len(parts[2]) > 0 && parts[2][len(parts[2])-1] >= 'a' && parts[2][len(parts[2])-1] <= 'z' {
		return parts[0] + "-" + parts[1]
	}
	return location
}

// IsZone reports whether a location names a zone (us-central1-a).
func IsZone(location string) bool { return RegionOf(location) != location }
