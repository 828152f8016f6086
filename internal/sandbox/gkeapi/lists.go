package gkeapi

import (
	"fmt"
	"net/http"
	"sort"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// What the GKE API serves beyond what the provider reads, for the gcloud
// commands of GKE's dynamic slicing guide: clusters.list, operations.list,
// and the node fields of a cluster that `gcloud container clusters
// describe` and `clusters list` read (they fail without
// currentNodeVersion).

// withNodeFields adds to a rendered cluster the fields GKE derives from
// its node pools: currentNodeVersion (the pools' version; the master's
// when there is no pool, as GKE reports it), currentNodeCount, and the
// deprecated zone, which holds the location and which gcloud still lists,
// and the deprecated instanceGroupUrls, every pool's.
func withNodeFields(cluster map[string]any, pools []map[string]any) map[string]any {
	cluster["zone"] = cluster["location"]
	cluster["currentNodeVersion"] = cluster["currentMasterVersion"]
	count := 0
	groups := []string{}
	for _, p := range pools {
		if urls, ok := p["instanceGroupUrls"].([]string); ok {
			groups = append(groups, urls...)
		}
		if v, ok := p["version"].(string); ok && v != "" {
			cluster["currentNodeVersion"] = v
		}
		if n, ok := p["initialNodeCount"].(int); ok {
			count += n
		}
	}
	cluster["currentNodeCount"] = count
	if len(groups) > 0 {
		cluster["instanceGroupUrls"] = groups
	}
	return cluster
}

// listLocation checks a list request: ok is false when it names another
// project (answered 404), and covers says whether its location includes
// the sandbox's region: "-" (every location) or the region itself.
func (w *API) listLocation(rw http.ResponseWriter, r *http.Request) (covers, ok bool) {
	if p := r.PathValue("project"); p != w.Inv.Project {
		googleapi.NotFound(rw, fmt.Sprintf("projects/%s (the sandbox project is %q)", p, w.Inv.Project))
		return false, false
	}
	l := r.PathValue("location")
	return l == "-" || l == w.Inv.Region, true
}

// listClusters is clusters.list: the sandbox's one cluster, in its region
// or in every location ("-", what `gcloud container clusters list` asks);
// none elsewhere.
func (w *API) listClusters(rw http.ResponseWriter, r *http.Request) {
	covers, ok := w.listLocation(rw, r)
	if !ok {
		return
	}
	clusters := []map[string]any{}
	if covers {
		clusters = append(clusters, w.clusterJSON())
	}
	googleapi.WriteJSON(rw, http.StatusOK, map[string]any{"clusters": clusters})
}

// listContainerOperations is operations.list: every GKE operation, oldest
// first (all are in the sandbox's region).
func (w *API) listContainerOperations(rw http.ResponseWriter, r *http.Request) {
	covers, ok := w.listLocation(rw, r)
	if !ok {
		return
	}
	ops := []map[string]any{}
	if covers {
		w.Mu.Lock()
		var started []*cloud.Operation
		for _, op := range w.Ops {
			if op.API == "container" {
				started = append(started, op)
			}
		}
		sort.Slice(started, func(i, j int) bool { return started[i].Started.Before(started[j].Started) })
		for _, op := range started {
			ops = append(ops, w.containerOperationJSON(op))
		}
		w.Mu.Unlock()
	}
	googleapi.WriteJSON(rw, http.StatusOK, map[string]any{"operations": ops})
}
