package sandbox

import (
	"encoding/json"
	"net/http"
)

// controlHandler serves the sandbox's control endpoint under /sandbox/:
//
//	GET  /sandbox/faults        the current faults
//	PUT  /sandbox/faults        replace the faults (JSON Faults)
//	POST /sandbox/watches/cut   cut every open Kubernetes watch
//	POST /sandbox/hosts         set a host's health: {"reservation","block","subBlock","host","health"}
//	POST /sandbox/nodes/{name}/vanish   delete a node as if its VM vanished
//	PUT  /sandbox/cluster/version       set the GKE version: {"version"}
//	POST /sandbox/maintenance           announce or withdraw a sub-block's maintenance (maintenance.go)
//
// It takes the same bearer token as the APIs.
func (sb *Sandbox) controlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sandbox/faults", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, sb.Faults())
	})
	mux.HandleFunc("PUT /sandbox/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			badRequest(w, "faults: "+err.Error())
			return
		}
		sb.SetFaults(f)
		writeJSON(w, http.StatusOK, sb.Faults())
	})
	mux.HandleFunc("GET /sandbox/wrong-ca.pem", func(w http.ResponseWriter, _ *http.Request) {
		pem, err := WrongCAPEM()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/x-pem-file")
		_, _ = w.Write(pem)
	})
	mux.HandleFunc("POST /sandbox/watches/cut", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]int{"cut": sb.CutWatches()})
	})
	mux.HandleFunc("POST /sandbox/hosts", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Reservation string `json:"reservation"`
			Block       string `json:"block"`
			SubBlock    string `json:"subBlock"`
			Host        int    `json:"host"`
			Health      string `json:"health"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			badRequest(w, "hosts: "+err.Error())
			return
		}
		if err := sb.SetHostHealth(r.Context(), req.Reservation, req.Block, req.SubBlock, req.Host, req.Health); err != nil {
			badRequest(w, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, req)
	})
	mux.HandleFunc("PUT /sandbox/cluster/version", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Version string `json:"version"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Version == "" {
			badRequest(w, `the body must be {"version": "1.36.1-gke.1045000"}`)
			return
		}
		sb.SetClusterVersion(req.Version)
		writeJSON(w, http.StatusOK, req)
	})
	mux.HandleFunc("POST /sandbox/nodes/{name}/vanish", func(w http.ResponseWriter, r *http.Request) {
		if err := sb.VanishNode(r.Context(), r.PathValue("name")); err != nil {
			badRequest(w, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"vanished": r.PathValue("name")})
	})
	sb.routeMaintenanceControl(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+sb.Token {
			writeGoogleError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "use the sandbox token", "authError")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// SetClusterVersion sets the GKE version the cluster reports (an upgrade
// or, for tests of version gates, a downgrade).
func (sb *Sandbox) SetClusterVersion(version string) {
	sb.world.Mu.Lock()
	sb.world.ClusterVersion = version
	sb.world.Mu.Unlock()
}

// ClusterVersion is the GKE version the cluster reports.
func (sb *Sandbox) ClusterVersion() string {
	sb.world.Mu.Lock()
	defer sb.world.Mu.Unlock()
	return sb.world.ClusterVersion
}

// Faults returns the faults in force.
func (sb *Sandbox) Faults() Faults {
	sb.world.Mu.Lock()
	defer sb.world.Mu.Unlock()
	f := sb.world.Faults
	f.FailOperations = copyCounts(f.FailOperations)
	return f
}

// SetFaults replaces the faults in force.
func (sb *Sandbox) SetFaults(f Faults) {
	f.FailOperations = copyCounts(f.FailOperations)
	f.KubeDeny = copyCounts(f.KubeDeny)
	sb.world.Mu.Lock()
	sb.world.Faults = f
	sb.world.Mu.Unlock()
	sb.applyDWSFaults(f)
	if f.KubeDown != "" {
		sb.CutWatches() // a dead API server's watches end
	}
}

func copyCounts(m map[string]int) map[string]int {
	if m == nil {
		return nil
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
