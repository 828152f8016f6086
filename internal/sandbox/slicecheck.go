package sandbox

import (
	"context"
	"fmt"
	"log"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecheck"
)

// KueueSliceController is the controllerName of the AdmissionCheck that
// makes Slices for Kueue's workloads (package slicecheck).
const KueueSliceController = slicecheck.KueueSliceController

var (
	// WorkloadGVR and AdmissionCheckGVR are Kueue's resources the slice
	// admission check reads and writes.
	WorkloadGVR       = slicecheck.WorkloadGVR
	AdmissionCheckGVR = slicecheck.AdmissionCheckGVR
)

// startSliceCheck starts the emulated slice admission check: its
// controller and its webhook, registered with the API server; with
// opts.SliceCheck external, neither (an outside controller serves the
// check). It runs until ctx ends; its log is slice-admission-check.log.
func (sb *Sandbox) startSliceCheck(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, certs *pki, opts Options) error {
	w, err := sb.logWriter("slice-admission-check", opts.Log)
	if err != nil {
		return err
	}
	logger := log.New(w, "", log.LstdFlags|log.Lmicroseconds)
	switch opts.SliceCheck {
	case "", SliceCheckEmulated:
	case SliceCheckExternal:
		logger.Printf("not started: the slice admission check (%s) is left to an outside controller (SliceCheck %q)", KueueSliceController, opts.SliceCheck)
		return nil
	default:
		return fmt.Errorf("sandbox option SliceCheck %q: want %q or %q", opts.SliceCheck, SliceCheckEmulated, SliceCheckExternal)
	}
	// The check works on Kueue's v1beta2 Workloads (Kueue v0.15 and later);
	// with CRDs of an older Kueue it has nothing to watch.
	direct := sb.directConfig()
	for _, gvr := range []schema.GroupVersionResource{WorkloadGVR, AdmissionCheckGVR} {
		if err := apiServed(direct, gvr); err != nil {
			logger.Printf("not started: %v (the slice admission check needs Kueue v0.15 or later)", err)
			return nil
		}
	}
	check := slicecheck.New(kube, dyn, sb.controller.NodeLabels, logger, opts.SliceCheckTiming)
	syncCtx, cancelSync := context.WithTimeout(ctx, 30*time.Second)
	defer cancelSync()
	if err := check.Start(ctx, syncCtx); err != nil {
		return fmt.Errorf("starting the slice admission check: %w", err)
	}
	url, err := slicecheck.ServeWebhook(ctx, certs.CertFile, certs.KeyFile)
	if err != nil {
		return err
	}
	regCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return slicecheck.RegisterWebhook(regCtx, dyn, url, certs.CAPEM)
}
