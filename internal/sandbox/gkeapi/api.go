// Package gkeapi is the sandbox's emulated GKE API (container/v1 and
// v1beta1): its routes, the JSON of the cluster, its node pools and
// operations, its checks of requests, and the pools' Nodes, over the
// emulated world (package cloud), which it shares with the emulated Compute
// API. Package sandbox serves its Handler behind googleapi.Front.
package gkeapi

import (
	"fmt"
	"net/http"
	"regexp"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// GKE API status codes (google.rpc.Code) used in operation errors.
const (
	rpcInternal = 13
)

var poolNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)

// API serves the emulated GKE API over the world.
type API struct{ *cloud.World }

// New returns the GKE API of the world w.
func New(w *cloud.World) *API { return &API{w} }

// Handler serves the emulated GKE API (container/v1 and v1beta1) for the
// inventory's one regional cluster.
func (w *API) Handler() http.Handler {
	mux := http.NewServeMux()
	// v1beta1 is served as v1: the same messages, with fields of their own
	// that acceptBody reads off the v1beta1 types. The Terraform google
	// provider sends some calls to v1beta1.
	for _, v := range []string{"/v1", "/v1beta1"} {
		location := v + "/projects/{project}/locations/{location}"
		cluster := location + "/clusters/{cluster}"
		mux.HandleFunc("GET "+cluster, w.withCluster(w.getCluster))
		mux.HandleFunc("GET "+cluster+"/nodePools", w.withCluster(w.listNodePools))
		mux.HandleFunc("POST "+cluster+"/nodePools", w.withCluster(w.createNodePool))
		mux.HandleFunc("GET "+cluster+"/nodePools/{pool}", w.withCluster(w.getNodePool))
		mux.HandleFunc("DELETE "+cluster+"/nodePools/{pool}", w.withCluster(w.deleteNodePool))
		mux.HandleFunc("PUT "+cluster+"/nodePools/{pool}", w.withCluster(w.updateNodePool))
		mux.HandleFunc("POST "+cluster+"/nodePools/{pool}", w.withCluster(w.poolAction))
		mux.HandleFunc("GET "+location+"/operations/{op}", w.getContainerOperation)
		mux.HandleFunc("GET "+location+"/operations", w.listContainerOperations)
		mux.HandleFunc("GET "+location+"/clusters", w.listClusters)
	}
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		googleapi.NotFound(rw, r.URL.Path)
	})
	return mux
}

// withCluster answers 404 unless the path names the sandbox cluster.
func (w *API) withCluster(next http.HandlerFunc) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		p, l, c := r.PathValue("project"), r.PathValue("location"), r.PathValue("cluster")
		if p != w.Inv.Project || l != w.Inv.Region || c != w.Inv.Cluster {
			googleapi.NotFound(rw, fmt.Sprintf("projects/%s/locations/%s/clusters/%s (the sandbox has projects/%s/locations/%s/clusters/%s)",
				p, l, c, w.Inv.Project, w.Inv.Region, w.Inv.Cluster))
			return
		}
		next(rw, r)
	}
}

func (w *API) clusterPath() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", w.Inv.Project, w.Inv.Region, w.Inv.Cluster)
}

func statusName(code int) string {
	switch code {
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ALREADY_EXISTS"
	default:
		return "INVALID_ARGUMENT"
	}
}
