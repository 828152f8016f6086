package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/computeapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/gkeapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
)

// startGoogleAPIs serves the emulated GKE and Compute APIs and the control
// endpoint, and starts the slice-controller simulator and the slice
// admission check of the Kueue path.
func (sb *Sandbox) startGoogleAPIs(opts Options, certs *pki) error {
	sb.Inventory = opts.Inventory
	if sb.Inventory == nil {
		sb.Inventory = DefaultInventory()
	}
	// The emulated GKE and the controller talk to the API server directly,
	// so the proxy sees (and can cut, and counts) client traffic only.
	direct := sb.RESTConfig()
	direct.Host = sb.apiserverURL
	direct.QPS, direct.Burst = 500, 1000
	kube, err := kubernetes.NewForConfig(direct)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(direct)
	if err != nil {
		return err
	}
	w := sb.newWorld(opts, kube)
	sb.world = w
	deny := w.KubeDenial
	sb.proxy.deny.Store(&deny)

	runCtx, cancel := context.WithCancel(context.Background())
	sb.stopCtx = cancel
	sb.controller = slicecontroller.New(w, kube, dyn)
	if err := sb.controller.Start(runCtx); err != nil {
		return fmt.Errorf("starting the slice-controller simulator: %w", err)
	}
	if err := sb.startSliceCheck(runCtx, kube, dyn, certs, opts); err != nil {
		return err
	}
	if err := sb.startDWS(runCtx, kube, dyn, opts.Log); err != nil {
		return err
	}

	// The emulated APIs' notes on requests (fields they ignore) go to
	// google-apis.log beside the other parts' logs, not to the stderr of
	// the program that started the sandbox.
	notes, err := sb.logWriter("google-apis", opts.Log)
	if err != nil {
		return err
	}
	googleapi.SetLogOutput(notes)

	mux := http.NewServeMux()
	compute := func(f *Faults) *APIFaults { return &f.Compute }
	container := func(f *Faults) *APIFaults { return &f.Container }
	mux.Handle("/compute/v1/", googleapi.Front(w, "compute", compute, computeapi.New(w).Handler()))
	mux.Handle("/v1/", googleapi.Front(w, "container", container, gkeapi.New(w).Handler()))
	mux.Handle("/v1beta1/", googleapi.Front(w, "container", container, gkeapi.New(w).Handler()))
	mux.Handle("/sandbox/", sb.controlHandler())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sb.GoogleURL = "http://" + l.Addr().String() + "/"
	// The Compute clients join the endpoint and "/compute/v1/..." with a
	// slash of their own; accept the doubled slash rather than letting the
	// mux redirect (which would turn a POST into a GET).
	collapse := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "//") {
			r.URL.Path = "/" + strings.TrimLeft(r.URL.Path, "/")
			r.URL.RawPath = ""
		}
		mux.ServeHTTP(rw, r)
	})
	sb.google = &http.Server{Handler: collapse, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = sb.google.Serve(l) }()
	return nil
}

// newWorld is the emulated cloud of the sandbox's inventory, as opts say:
// its faults, the cluster's endpoint and CA, the client it registers Nodes
// with, and the bounds and logs of its waits for kwok.
func (sb *Sandbox) newWorld(opts Options, kube kubernetes.Interface) *cloud.World {
	w := cloud.NewWorld(sb.Inventory, sb.Token)
	w.Faults = opts.Faults
	w.Schedule = opts.Delays
	w.ClusterEndpoint = strings.TrimPrefix(sb.KubeHost, "https://")
	w.ClusterCA = sb.CAPEM
	w.Kube = kube
	w.NodeLifecycle = !opts.NoWorkloads
	w.NodeReadyTimeout = opts.NodeReadyTimeout
	w.PartLogs = filepath.Join(sb.Dir, "kwok.log")
	if w.NodeLifecycle {
		w.PartLogs += " and " + filepath.Join(sb.Dir, "kube-controller-manager.log")
	}
	return w
}
