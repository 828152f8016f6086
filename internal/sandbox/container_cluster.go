package sandbox

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The cluster and its node pools as the GKE API renders them.

func (w *world) getCluster(rw http.ResponseWriter, _ *http.Request) {
	googleapi.WriteJSON(rw, http.StatusOK, w.clusterJSON())
}

// clusterJSON renders the cluster, as clusters.get and clusters.list
// answer: every field GKE returns for a Standard cluster (see
// container_defaults.go), the ones the sandbox emulates set from its state.
func (w *world) clusterJSON() map[string]any {
	w.mu.Lock()
	pools := w.poolsJSON()
	version := w.clusterVersion
	created := w.created
	w.mu.Unlock()
	inv := w.inv
	out := clusterDefaults(inv.Project, inv.Region, inv.Cluster)
	for k, v := range map[string]any{
		"name":                  inv.Cluster,
		"id":                    cloud.OpaqueID("gke-cluster", inv.Project, inv.Region, inv.Cluster),
		"location":              inv.Region,
		"locations":             []string{inv.Zone},
		"status":                "RUNNING",
		"endpoint":              w.clusterEndpoint,
		"createTime":            created.UTC().Format(time.RFC3339),
		"currentMasterVersion":  version,
		"initialClusterVersion": version,
		"releaseChannel":        map[string]any{"channel": "RAPID"},
		"masterAuth":            map[string]any{"clusterCaCertificate": base64.StdEncoding.EncodeToString(w.clusterCA)},
		"privateClusterConfig":  map[string]any{"privateEndpoint": w.clusterEndpoint, "publicEndpoint": w.clusterEndpoint},
		"selfLink":              "https://container.googleapis.com/v1/" + w.clusterPath(),
		"nodePools":             pools,
		"etag":                  cloud.OpaqueID("etag", version, fmt.Sprint(len(pools)))[:8],
	} {
		out[k] = v
	}
	return withNodeFields(out, pools)
}

// poolsJSON renders every pool, sorted by name. Callers hold w.mu.
func (w *world) poolsJSON() []map[string]any {
	names := make([]string, 0, len(w.nodePools))
	for n := range w.nodePools {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		out = append(out, w.poolJSON(w.nodePools[n]))
	}
	return out
}

// poolJSON echoes the pool as created, with the fields GKE sets. Callers
// hold w.mu.
func (w *world) poolJSON(p *nodePool) map[string]any {
	out := withDefaults(p.Raw, poolDefaults(w.inv.Project, w.inv.Cluster))
	out["name"] = p.Name
	out["status"] = p.Status
	out["version"] = w.clusterVersion
	out["selfLink"] = "https://container.googleapis.com/v1/" + w.clusterPath() + "/nodePools/" + p.Name
	out["locations"] = p.Locations
	out["initialNodeCount"] = p.NodeCount
	out["instanceGroupUrls"] = []string{w.zoneLink() + "/instanceGroupManagers/" + w.migName(p.Name)}
	out["etag"] = cloud.OpaqueID("etag", p.Name, p.Status, fmt.Sprint(p.Labels))[:8]
	if p.Status == "ERROR" {
		out["statusMessage"] = "node pool creation failed; delete and re-create it"
	}
	return out
}

func (w *world) listNodePools(rw http.ResponseWriter, _ *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	googleapi.WriteJSON(rw, http.StatusOK, map[string]any{"nodePools": w.poolsJSON()})
}

func (w *world) getNodePool(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.nodePools[r.PathValue("pool")]
	if !ok {
		googleapi.NotFound(rw, w.clusterPath()+"/nodePools/"+r.PathValue("pool"))
		return
	}
	googleapi.WriteJSON(rw, http.StatusOK, w.poolJSON(p))
}
