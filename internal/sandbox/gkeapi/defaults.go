package gkeapi

import (
	"maps"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// What GKE returns for a Standard cluster and its node pools beyond what the
// sandbox emulates: the fields that every real clusters.get and
// nodePools.get answer carries, with GKE's values for a regional cluster
// made with the defaults (VPC-native, on the default network, release
// channel, Shielded Nodes, system logging and monitoring). Clients read
// them without checking for absence: the Terraform google provider's
// google_container_cluster data source dereferences legacyAbac and
// networkConfig, gcloud prints nodeConfig and the CIDRs. The field names
// and shapes are those of google.golang.org/api/container/v1 (Cluster,
// NodePool, NodeConfig); the sandbox's container_objects_test.go checks them against it.

// GKE's default address ranges for a new VPC-native cluster: pods in a
// /14 of 10.0.0.0/8, services in GKE's managed 34.118.224.0/20.
const (
	clusterPodsCIDR     = "10.64.0.0/14"
	clusterServicesCIDR = "34.118.224.0/20"
)

// defaultOAuthScopes are the scopes GKE gives nodes whose config names none.
var defaultOAuthScopes = []string{
	"https://www.googleapis.com/auth/devstorage.read_only",
	"https://www.googleapis.com/auth/logging.write",
	"https://www.googleapis.com/auth/monitoring",
	"https://www.googleapis.com/auth/service.management.readonly",
	"https://www.googleapis.com/auth/servicecontrol",
	"https://www.googleapis.com/auth/trace.append",
}

// podRangeName is the name GKE gives the pods' secondary range of the
// cluster's subnet.
func podRangeName(project, cluster string) string {
	return "gke-" + cluster + "-pods-" + cloud.OpaqueID("pods", project, cluster)[:8]
}

// clusterDefaults are a Standard cluster's fields that the sandbox does not
// emulate, as GKE returns them.
func clusterDefaults(project, region, cluster string) map[string]any {
	network := "projects/" + project + "/global/networks/default"
	subnetwork := "projects/" + project + "/regions/" + region + "/subnetworks/default"
	components := func(c ...string) map[string]any {
		return map[string]any{"componentConfig": map[string]any{"enableComponents": c}}
	}
	monitoring := components("SYSTEM_COMPONENTS", "STORAGE", "POD", "DEPLOYMENT", "STATEFULSET", "DAEMONSET", "HPA", "CADVISOR", "KUBELET")
	monitoring["managedPrometheusConfig"] = map[string]any{"enabled": true}
	monitoring["advancedDatapathObservabilityConfig"] = map[string]any{}
	return map[string]any{
		"nodeConfig":                     nodeConfigDefaults(),
		"loggingService":                 "logging.googleapis.com/kubernetes",
		"monitoringService":              "monitoring.googleapis.com/kubernetes",
		"network":                        "default",
		"subnetwork":                     "default",
		"clusterIpv4Cidr":                clusterPodsCIDR,
		"servicesIpv4Cidr":               clusterServicesCIDR,
		"nodeIpv4CidrSize":               24,
		"addonsConfig":                   addonsDefaults(),
		"legacyAbac":                     map[string]any{},
		"networkPolicy":                  map[string]any{},
		"labelFingerprint":               cloud.OpaqueID("labels", project, cluster)[:8],
		"ipAllocationPolicy":             ipAllocationDefaults(project, cluster),
		"networkConfig":                  networkConfigDefaults(network, subnetwork),
		"defaultMaxPodsConstraint":       map[string]any{"maxPodsPerNode": "110"},
		"masterAuthorizedNetworksConfig": map[string]any{"gcpPublicCidrsAccessEnabled": true},
		"maintenancePolicy":              map[string]any{"resourceVersion": cloud.OpaqueID("maintenance", cluster)[:8]},
		"binaryAuthorization":            map[string]any{},
		"autoscaling":                    map[string]any{"autoscalingProfile": "BALANCED"},
		"authenticatorGroupsConfig":      map[string]any{},
		"databaseEncryption":             map[string]any{"state": "DECRYPTED", "currentState": "CURRENT_STATE_DECRYPTED"},
		"shieldedNodes":                  map[string]any{"enabled": true},
		"workloadIdentityConfig":         map[string]any{"workloadPool": project + ".svc.id.goog"},
		"notificationConfig":             map[string]any{"pubsub": map[string]any{}},
		"loggingConfig":                  components("SYSTEM_COMPONENTS", "WORKLOADS"),
		"monitoringConfig":               monitoring,
		"nodePoolAutoConfig":             map[string]any{"nodeKubeletConfig": map[string]any{"insecureKubeletReadonlyPortEnabled": false}},
		"nodePoolDefaults":               map[string]any{"nodeConfigDefaults": map[string]any{"loggingConfig": map[string]any{"variantConfig": map[string]any{"variant": "DEFAULT"}}}},
		"securityPostureConfig":          map[string]any{"mode": "BASIC", "vulnerabilityMode": "VULNERABILITY_DISABLED"},
		"enterpriseConfig":               map[string]any{"clusterTier": "STANDARD"},
		"rbacBindingConfig":              map[string]any{"enableInsecureBindingSystemUnauthenticated": false, "enableInsecureBindingSystemAuthenticated": false},
	}
}

// addonsDefaults is a Standard cluster's addonsConfig, with the slice
// controller that dynamic slicing needs enabled.
func addonsDefaults() map[string]any {
	return map[string]any{
		"httpLoadBalancing":                map[string]any{},
		"horizontalPodAutoscaling":         map[string]any{},
		"kubernetesDashboard":              map[string]any{"disabled": true},
		"networkPolicyConfig":              map[string]any{"disabled": true},
		"gcePersistentDiskCsiDriverConfig": map[string]any{"enabled": true},
		"gcpFilestoreCsiDriverConfig":      map[string]any{},
		"gkeBackupAgentConfig":             map[string]any{},
		"dnsCacheConfig":                   map[string]any{},
		"sliceControllerConfig":            map[string]any{"enabled": true},
	}
}

// ipAllocationDefaults is a VPC-native cluster's ipAllocationPolicy.
func ipAllocationDefaults(project, cluster string) map[string]any {
	return map[string]any{
		"useIpAliases":               true,
		"clusterSecondaryRangeName":  podRangeName(project, cluster),
		"clusterIpv4Cidr":            clusterPodsCIDR,
		"clusterIpv4CidrBlock":       clusterPodsCIDR,
		"servicesIpv4Cidr":           clusterServicesCIDR,
		"servicesIpv4CidrBlock":      clusterServicesCIDR,
		"stackType":                  "IPV4",
		"podCidrOverprovisionConfig": map[string]any{},
	}
}

// networkConfigDefaults is a cluster's networkConfig on the default network.
func networkConfigDefaults(network, subnetwork string) map[string]any {
	return map[string]any{
		"network":                   network,
		"subnetwork":                subnetwork,
		"datapathProvider":          "ADVANCED_DATAPATH",
		"defaultSnatStatus":         map[string]any{},
		"serviceExternalIpsConfig":  map[string]any{},
		"gatewayApiConfig":          map[string]any{"channel": "CHANNEL_STANDARD"},
		"enableIntraNodeVisibility": false,
	}
}

// nodeConfigDefaults is the node config GKE fills in for what a create
// leaves out.
func nodeConfigDefaults() map[string]any {
	return map[string]any{
		"machineType":            "e2-medium",
		"diskSizeGb":             100,
		"diskType":               "pd-balanced",
		"imageType":              "COS_CONTAINERD",
		"oauthScopes":            defaultOAuthScopes,
		"serviceAccount":         "default",
		"metadata":               map[string]any{"disable-legacy-endpoints": "true"},
		"shieldedInstanceConfig": map[string]any{"enableIntegrityMonitoring": true},
		"windowsNodeConfig":      map[string]any{},
		"effectiveCgroupMode":    "EFFECTIVE_CGROUP_MODE_V2",
	}
}

// poolDefaults are a node pool's fields that the sandbox does not emulate,
// as GKE returns them; TPU7x nodes boot from Hyperdisk.
func poolDefaults(project, cluster string) map[string]any {
	config := nodeConfigDefaults()
	config["diskType"] = "hyperdisk-balanced"
	return map[string]any{
		"config":            config,
		"autoscaling":       map[string]any{},
		"management":        map[string]any{"autoUpgrade": true, "autoRepair": true},
		"maxPodsConstraint": map[string]any{"maxPodsPerNode": "110"},
		"podIpv4CidrSize":   24,
		"upgradeSettings":   map[string]any{"maxSurge": 1, "strategy": "SURGE"},
		"networkConfig": map[string]any{
			"podRange":         podRangeName(project, cluster),
			"podIpv4CidrBlock": clusterPodsCIDR,
		},
	}
}

// mergedDefaults are the objects whose defaults GKE fills in field by field
// (a pool's config keeps the client's fields and gains the defaults of the
// others); any other object a client sets replaces the default whole, as a
// management of {autoUpgrade: true} means autoRepair false.
var mergedDefaults = map[string]bool{"config": true, "networkConfig": true}

// withDefaults returns obj with the defaults it lacks. Neither argument is
// changed.
func withDefaults(obj, defaults map[string]any) map[string]any {
	out := maps.Clone(defaults)
	for k, v := range obj {
		d, dok := out[k].(map[string]any)
		o, ook := v.(map[string]any)
		if dok && ook && mergedDefaults[k] {
			merged := maps.Clone(d)
			maps.Copy(merged, o)
			out[k] = merged
			continue
		}
		out[k] = v
	}
	return out
}
