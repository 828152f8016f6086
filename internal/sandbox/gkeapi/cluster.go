package gkeapi

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

func (w *API) getCluster(rw http.ResponseWriter, _ *http.Request) {
	googleapi.WriteJSON(rw, http.StatusOK, w.clusterJSON())
}

// clusterJSON renders the cluster, as clusters.get and clusters.list
// answer: every field GKE returns for a Standard cluster (see
// defaults.go), the ones the sandbox emulates set from its state.
func (w *API) clusterJSON() map[string]any {
	w.Mu.Lock()
	pools := w.poolsJSON()
	version := w.ClusterVersion
	created := w.Created
	w.Mu.Unlock()
	inv := w.Inv
	out := clusterDefaults(inv.Project, inv.Region, inv.Cluster)
	for k, v := range map[string]any{
		"name":                  inv.Cluster,
		"id":                    cloud.OpaqueID("gke-cluster", inv.Project, inv.Region, inv.Cluster),
		"location":              inv.Region,
		"locations":             []string{inv.Zone},
		"status":                "RUNNING",
		"endpoint":              w.ClusterEndpoint,
		"createTime":            created.UTC().Format(time.RFC3339),
		"currentMasterVersion":  version,
		"initialClusterVersion": version,
		"releaseChannel":        map[string]any{"channel": "RAPID"},
		"masterAuth":            map[string]any{"clusterCaCertificate": base64.StdEncoding.EncodeToString(w.ClusterCA)},
		"privateClusterConfig":  map[string]any{"privateEndpoint": w.ClusterEndpoint, "publicEndpoint": w.ClusterEndpoint},
		"selfLink":              "https://container.googleapis.com/v1/" + w.clusterPath(),
		"nodePools":             pools,
		"etag":                  cloud.OpaqueID("etag", version, fmt.Sprint(len(pools)))[:8],
	} {
		out[k] = v
	}
	return withNodeFields(out, pools)
}

// poolsJSON renders every pool, sorted by name. Callers hold w.Mu.
func (w *API) poolsJSON() []map[string]any {
	names := make([]string, 0, len(w.NodePools))
	for n := range w.NodePools {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		out = append(out, w.poolJSON(w.NodePools[n]))
	}
	return out
}

// poolJSON echoes the pool as created, with the fields GKE sets. Callers
// hold w.Mu.
func (w *API) poolJSON(p *cloud.NodePool) map[string]any {
	out := withDefaults(p.Raw, poolDefaults(w.Inv.Project, w.Inv.Cluster))
	out["name"] = p.Name
	out["status"] = p.Status
	out["version"] = w.ClusterVersion
	out["selfLink"] = "https://container.googleapis.com/v1/" + w.clusterPath() + "/nodePools/" + p.Name
	out["locations"] = p.Locations
	out["initialNodeCount"] = p.NodeCount
	out["instanceGroupUrls"] = []string{googleapi.ZoneLink(w.Inv.Project, w.Inv.Zone) + "/instanceGroupManagers/" + w.MigName(p.Name)}
	out["etag"] = cloud.OpaqueID("etag", p.Name, p.Status, fmt.Sprint(p.Labels))[:8]
	if p.Status == "ERROR" {
		out["statusMessage"] = "node pool creation failed; delete and re-create it"
	}
	return out
}

func (w *API) listNodePools(rw http.ResponseWriter, _ *http.Request) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	googleapi.WriteJSON(rw, http.StatusOK, map[string]any{"nodePools": w.poolsJSON()})
}

func (w *API) getNodePool(rw http.ResponseWriter, r *http.Request) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	p, ok := w.NodePools[r.PathValue("pool")]
	if !ok {
		googleapi.NotFound(rw, w.clusterPath()+"/nodePools/"+r.PathValue("pool"))
		return
	}
	googleapi.WriteJSON(rw, http.StatusOK, w.poolJSON(p))
}
