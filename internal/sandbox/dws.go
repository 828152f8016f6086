package sandbox

import (
	"context"
	"io"
	"log"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
)

// DWSProvisionDelay is how long the emulated Dynamic Workload Scheduler
// keeps a ProvisioningRequest Accepted before it is Provisioned (GKE takes
// minutes or more; Sandbox.DWS.SetProvisionDelay changes it).
const DWSProvisionDelay = 2 * time.Second

// startDWS starts the emulated Dynamic Workload Scheduler (package dws)
// over sb.DWS, its pools with queued provisioning and its faults. It runs
// until ctx ends; its log is dws.log.
func (sb *Sandbox) startDWS(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, logTo io.Writer) error {
	w, err := sb.logWriter("dws", logTo)
	if err != nil {
		return err
	}
	sb.DWS = dws.NewPools(DWSProvisionDelay)
	sb.world.Mu.Lock()
	sb.world.DWS = sb.DWS
	faults := sb.world.Faults
	sb.world.Mu.Unlock()
	sb.applyDWSFaults(faults)
	c := dws.New(sb.DWS, kube, dyn)
	c.Log = log.New(w, "", log.LstdFlags|log.Lmicroseconds)
	c.Start(ctx)
	return nil
}

// applyDWSFaults gives the emulated DWS the faults of f that it honours
// (Faults.DWSCapacityUnavailable, Faults.DWSProvisionDelayMs).
func (sb *Sandbox) applyDWSFaults(f Faults) {
	if sb.DWS == nil {
		return
	}
	delay := time.Duration(f.DWSProvisionDelayMs) * time.Millisecond
	switch {
	case f.DWSProvisionDelayMs == 0:
		delay = DWSProvisionDelay
	case delay < 0:
		delay = 0
	}
	sb.DWS.SetProvisionDelay(delay)
	sb.DWS.SetCapacityUnavailable(f.DWSCapacityUnavailable)
}
