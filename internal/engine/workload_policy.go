package engine

import (
	"context"

	"github.com/dynslice/terraform-provider-gke/internal/engine/workloadpolicy"
)

// The workload policies of internal/engine/workloadpolicy, by the names
// callers use.
type (
	// WorkloadPolicySpec is a workload policy as the user declares it.
	WorkloadPolicySpec = workloadpolicy.Spec
	// WorkloadPolicy is a workload policy as Compute Engine reports it.
	WorkloadPolicy = workloadpolicy.Policy
)

// Workload policy values, as the Compute API spells them. The provider's
// schema documentation and validators are built from these lists.
var (
	WorkloadPolicyTypes = workloadpolicy.Types
	TopologyModes       = workloadpolicy.TopologyModes
	// ResourceNameRE is the RFC 1035 name Compute Engine resources take.
	ResourceNameRE = workloadpolicy.ResourceNameRE
)

// Workload policy values dynamic slicing uses.
const (
	PolicyHighThroughput = workloadpolicy.HighThroughput
	PolicyProvisionOnly  = workloadpolicy.ProvisionOnly
)

// CheckDynamicSlicing applies dynamic slicing's rule on top of the policy's
// own (workloadpolicy.CheckDynamicSlicing).
func CheckDynamicSlicing(s WorkloadPolicySpec) error { return workloadpolicy.CheckDynamicSlicing(s) }

// CheckWorkloadPolicy applies the documented rules of a workload policy
// (workloadpolicy.Check).
func CheckWorkloadPolicy(s WorkloadPolicySpec) error { return workloadpolicy.Check(s) }

// ParseWorkloadPolicyID reads a self link, a projects/P/regions/R/
// resourcePolicies/N path, or a bare name (with the default project and
// region).
func ParseWorkloadPolicyID(id, defaultProject, defaultRegion string) (project, region, name string, err error) {
	return workloadpolicy.ParseID(id, defaultProject, defaultRegion)
}

// CreateWorkloadPolicy inserts the policy and waits for the operation.
func (e *Engine) CreateWorkloadPolicy(ctx context.Context, s WorkloadPolicySpec) (*WorkloadPolicy, error) {
	return e.policies.Create(ctx, s)
}

// ReadWorkloadPolicy returns the policy, or ErrNotFound.
func (e *Engine) ReadWorkloadPolicy(ctx context.Context, project, region, name string) (*WorkloadPolicy, error) {
	return e.policies.Read(ctx, project, region, name)
}

// DeleteWorkloadPolicy deletes the policy and waits; a policy already gone
// is not an error.
func (e *Engine) DeleteWorkloadPolicy(ctx context.Context, project, region, name string) error {
	return e.policies.Delete(ctx, project, region, name)
}
