package gkeapi_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	container "google.golang.org/api/container/v1"
	containerbeta "google.golang.org/api/container/v1beta1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// wantOnlyAPIFields fails the test for any field of obj (at any depth) that
// the Go client's type typ does not define: what the sandbox returns is
// what the API reference defines, nothing of its own.
func wantOnlyAPIFields(t *testing.T, what string, obj map[string]any, typ reflect.Type) {
	t.Helper()
	for _, u := range googleapi.UnknownFields(obj, typ) {
		t.Errorf("%s: a field %s does not define: %s", what, typ, u.Description)
	}
}

// missing lists the names of the checks that fail.
func missing(checks map[string]bool) []string {
	var out []string
	for name, ok := range checks {
		if !ok {
			out = append(out, name)
		}
	}
	return out
}

// clusterChecks are the cluster fields every clusters.get answer of GKE
// carries for a Standard cluster, and that clients read without checking
// (the Terraform google provider's data source crashed on a nil legacyAbac
// and networkConfig).
func clusterChecks(c *container.Cluster) map[string]bool {
	return map[string]bool{
		"name": c.Name != "", "id": len(c.Id) == 64, "selfLink": strings.HasSuffix(c.SelfLink, "/clusters/"+c.Name),
		"location": c.Location != "", "zone": c.Zone == c.Location, "locations": len(c.Locations) > 0,
		"endpoint": c.Endpoint != "", "status": c.Status == "RUNNING", "createTime": c.CreateTime != "",
		"currentMasterVersion": c.CurrentMasterVersion != "", "currentNodeVersion": c.CurrentNodeVersion != "",
		"initialClusterVersion": c.InitialClusterVersion != "", "releaseChannel": c.ReleaseChannel != nil && c.ReleaseChannel.Channel != "",
		"legacyAbac": c.LegacyAbac != nil, "networkPolicy": c.NetworkPolicy != nil,
		"networkConfig": c.NetworkConfig != nil && strings.Contains(c.NetworkConfig.Network, "/networks/") && strings.Contains(c.NetworkConfig.Subnetwork, "/subnetworks/"),
		"network":       c.Network != "", "subnetwork": c.Subnetwork != "",
		"masterAuth":                         c.MasterAuth != nil && c.MasterAuth.ClusterCaCertificate != "",
		"addonsConfig.sliceControllerConfig": c.AddonsConfig != nil && c.AddonsConfig.SliceControllerConfig != nil && c.AddonsConfig.SliceControllerConfig.Enabled,
		"addonsConfig.httpLoadBalancing":     c.AddonsConfig != nil && c.AddonsConfig.HttpLoadBalancing != nil,
		"nodeConfig":                         c.NodeConfig != nil && c.NodeConfig.MachineType != "" && c.NodeConfig.DiskSizeGb > 0 && c.NodeConfig.ImageType != "" && len(c.NodeConfig.OauthScopes) > 0,
		"clusterIpv4Cidr":                    c.ClusterIpv4Cidr != "", "servicesIpv4Cidr": c.ServicesIpv4Cidr != "",
		"ipAllocationPolicy": c.IpAllocationPolicy != nil && c.IpAllocationPolicy.UseIpAliases,
		"loggingService":     c.LoggingService != "", "monitoringService": c.MonitoringService != "",
		"loggingConfig": c.LoggingConfig != nil, "monitoringConfig": c.MonitoringConfig != nil,
		"privateClusterConfig":           c.PrivateClusterConfig != nil && c.PrivateClusterConfig.PublicEndpoint != "",
		"masterAuthorizedNetworksConfig": c.MasterAuthorizedNetworksConfig != nil,
		"databaseEncryption":             c.DatabaseEncryption != nil && c.DatabaseEncryption.State != "",
		"shieldedNodes":                  c.ShieldedNodes != nil && c.ShieldedNodes.Enabled,
		"maintenancePolicy":              c.MaintenancePolicy != nil, "autoscaling": c.Autoscaling != nil,
		"defaultMaxPodsConstraint": c.DefaultMaxPodsConstraint != nil && c.DefaultMaxPodsConstraint.MaxPodsPerNode > 0,
		"nodePoolDefaults":         c.NodePoolDefaults != nil, "notificationConfig": c.NotificationConfig != nil,
		"labelFingerprint": c.LabelFingerprint != "", "etag": c.Etag != "", "nodePools": len(c.NodePools) > 0,
	}
}

// poolChecks are the node pool fields every nodePools.get answer carries.
func poolChecks(p *container.NodePool) map[string]bool {
	cfg := p.Config
	return map[string]bool{
		"name": p.Name != "", "status": p.Status == "RUNNING", "version": p.Version != "",
		"selfLink": strings.HasSuffix(p.SelfLink, "/nodePools/"+p.Name), "locations": len(p.Locations) > 0,
		"initialNodeCount": p.InitialNodeCount > 0, "instanceGroupUrls": len(p.InstanceGroupUrls) == 1,
		"config.machineType":            cfg != nil && cfg.MachineType == cloud.MachineType,
		"config defaults":               cfg != nil && cfg.DiskSizeGb > 0 && cfg.DiskType != "" && cfg.ImageType != "" && cfg.ServiceAccount != "" && len(cfg.OauthScopes) > 0,
		"config.shieldedInstanceConfig": cfg != nil && cfg.ShieldedInstanceConfig != nil,
		"management":                    p.Management != nil && p.Management.AutoRepair && p.Management.AutoUpgrade,
		"maxPodsConstraint":             p.MaxPodsConstraint != nil && p.MaxPodsConstraint.MaxPodsPerNode > 0,
		"networkConfig":                 p.NetworkConfig != nil && p.NetworkConfig.PodRange != "" && p.NetworkConfig.PodIpv4CidrBlock != "",
		"upgradeSettings":               p.UpgradeSettings != nil && p.UpgradeSettings.Strategy != "",
		"podIpv4CidrSize":               p.PodIpv4CidrSize > 0, "etag": p.Etag != "", "placementPolicy": p.PlacementPolicy != nil,
	}
}

// Every cluster, node pool and operation the emulated GKE returns carries
// the fields GKE's do, and no field that container/v1 (for v1) or
// container/v1beta1 (for v1beta1) does not define.
func TestGKEWholeObjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	ctx := testContext(t)
	spec := poolSpec("np-b2-whole", reservationPath("tpu7x-reservation", "block-b", "sub-block-b2"), 2)
	if err := createPool(t, svc, spec); err != nil {
		t.Fatal(err)
	}

	for _, v := range []struct {
		version            string
		cluster, pool, ops reflect.Type
	}{
		{"v1", reflect.TypeFor[container.Cluster](), reflect.TypeFor[container.NodePool](), reflect.TypeFor[container.ListOperationsResponse]()},
		{"v1beta1", reflect.TypeFor[containerbeta.Cluster](), reflect.TypeFor[containerbeta.NodePool](), reflect.TypeFor[containerbeta.ListOperationsResponse]()},
	} {
		base := v.version + "/" + clusterName()
		_, cluster := e.get(t, base)
		wantOnlyAPIFields(t, v.version+" cluster", cluster, v.cluster)
		_, pool := e.get(t, base+"/nodePools/np-b2-whole")
		wantOnlyAPIFields(t, v.version+" node pool", pool, v.pool)
		location := clusterName()[:strings.Index(clusterName(), "/clusters/")]
		_, ops := e.get(t, v.version+"/"+location+"/operations")
		wantOnlyAPIFields(t, v.version+" operations", ops, v.ops)
	}

	c, err := svc.Projects.Locations.Clusters.Get(clusterName()).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if m := missing(clusterChecks(c)); len(m) > 0 {
		t.Errorf("cluster lacks %v", m)
	}
	p, err := svc.Projects.Locations.Clusters.NodePools.Get(clusterName() + "/nodePools/np-b2-whole").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if m := missing(poolChecks(p)); len(m) > 0 {
		t.Errorf("node pool lacks %v", m)
	}
	ops, err := svc.Projects.Locations.Operations.List(clusterName()[:strings.Index(clusterName(), "/clusters/")]).Context(ctx).Do()
	if err != nil || len(ops.Operations) == 0 {
		t.Fatalf("operations: %v", err)
	}
	for _, op := range ops.Operations {
		if op.Name == "" || op.OperationType == "" || op.Status == "" || op.SelfLink == "" || op.TargetLink == "" ||
			op.Location == "" || op.Zone == "" || op.StartTime == "" || (op.Status == "DONE") != (op.EndTime != "") {
			t.Errorf("operation lacks fields: %+v", op)
		}
	}
}

// A request the API refuses is logged with its method, path, status and
// message; a served one is not. Not parallel: it reads the log of the
// emulated APIs, which is one for the process.
func TestGKERefusedRequestsAreLogged(t *testing.T) {
	e := newEnv(t)
	logged := captureLog(t)
	path := "v1/" + clusterName() + "/nodePools/no-such-pool"
	if status, _ := e.get(t, path); status != http.StatusNotFound {
		t.Fatalf("GET %s: %d, want 404", path, status)
	}
	if status, _ := e.get(t, "v1/"+clusterName()); status != http.StatusOK {
		t.Fatalf("GET the cluster: %d, want 200", status)
	}
	out := logged()
	if want := "container GET /" + path + ": refused 404: The resource '" + clusterName() + "/nodePools/no-such-pool' was not found"; !strings.Contains(out, want) {
		t.Errorf("log lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "GET /v1/"+clusterName()+":") {
		t.Errorf("a served request was logged as refused:\n%s", out)
	}
}
