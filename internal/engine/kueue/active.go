package kueue

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// SliceControllerNamespace is where GKE runs the slice controller, whose
// admission check (accelerator.gke.io/slice) the ClusterQueue needs.
const SliceControllerNamespace = "slice-controller-system"

// InactiveQueueError is a ClusterQueue that Kueue did not report Active
// within the wait: no workload is admitted from it. Reason and Message are
// Kueue's (its Active condition; empty when Kueue reported none: Kueue's
// controller is not running), Advice what to check.
type InactiveQueueError struct {
	Queue           string
	Reason, Message string
	Advice          string
	// Err is why the wait ended (the context's error); nil for a read
	// (KueueDrift).
	Err error
}

func (e *InactiveQueueError) Error() string {
	state := "Kueue has not reported its Active condition: is Kueue's controller (kueue-system) running?"
	if e.Reason != "" {
		state = fmt.Sprintf("Kueue reports %s: %s", e.Reason, e.Message)
	}
	s := fmt.Sprintf("ClusterQueue %s is not Active (%s)", e.Queue, state)
	if e.Advice != "" {
		s += ". " + e.Advice
	}
	return s
}

func (e *InactiveQueueError) Unwrap() error { return e.Err }

// queueState reads the ClusterQueue name's Active condition: active, or
// Kueue's reason and message (both empty when it reports none).
func (e *Kueue) queueState(ctx context.Context, name string) (active bool, reason, message string, err error) {
	c, err := e.cluster(ctx)
	if err != nil {
		return false, "", "", err
	}
	cq, err := c.Kueue("clusterqueues").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return false, "NotFound", "the ClusterQueue does not exist", nil
		}
		return false, "", "", fmt.Errorf("reading ClusterQueue %s: %w", name, err)
	}
	active, reason, message = activeCondition(cq)
	return active, reason, message, nil
}

// activeCondition reads a ClusterQueue's first Active condition: whether
// it is True, and Kueue's reason and message (all zero when there is
// none).
func activeCondition(cq *unstructured.Unstructured) (active bool, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(cq.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != "Active" {
			continue
		}
		reason, _ := m["reason"].(string)
		message, _ := m["message"].(string)
		return m["status"] == "True", reason, message
	}
	return false, "", ""
}

// inactive is the InactiveQueueError of k's ClusterQueue with Kueue's
// reason and message, advising on the admission checks the message names.
func (k KueueSlicing) inactive(reason, message string, err error) *InactiveQueueError {
	var advice []string
	// Kueue writes "Can't admit new workloads: <reason>, <reason>." with
	// "references inactive AdmissionCheck(s): a,b" among the reasons.
	const marker = "inactive AdmissionCheck(s): "
	if i := strings.Index(message, marker); i >= 0 {
		names := message[i+len(marker):]
		if j := strings.Index(names, ", "); j >= 0 {
			names = names[:j]
		}
		for _, name := range strings.Split(strings.TrimSuffix(names, "."), ",") {
			switch strings.TrimSpace(name) {
			case k.Name:
				advice = append(advice, fmt.Sprintf("The slice admission check %s is inactive: the slice controller (controller %s, namespace %s on GKE) "+
					"is missing or not ready. Check it with kubectl -n %s get pods, and enable dynamic slicing on the cluster if it has none.",
					k.Name, KueueSliceController, SliceControllerNamespace, SliceControllerNamespace))
			case k.OverflowName():
				advice = append(advice, fmt.Sprintf("The flex-start admission check %s is inactive: Kueue's ProvisioningRequest controller (%s) "+
					"is not running. Enable it in Kueue's configuration (the ProvisioningACC feature gate) and check that the cluster serves "+
					"ProvisioningRequests (autoscaling.x-k8s.io).", k.OverflowName(), KueueProvisioningController))
			}
		}
	}
	return &InactiveQueueError{Queue: k.Name, Reason: reason, Message: message, Advice: strings.Join(advice, " "), Err: err}
}

// AwaitActive waits until Kueue reports the ClusterQueue of k Active,
// reading it at the cadence of the engine's operation polls. When ctx ends
// first (the create or update timeout), it returns an InactiveQueueError
// with Kueue's last reason and what to check.
func (e *Kueue) AwaitActive(ctx context.Context, k KueueSlicing) error {
	delay := e.poll.Initial
	reason, message := "", ""
	for {
		active, r, m, err := e.queueState(ctx, k.Name)
		switch {
		case active:
			return nil
		case err != nil && ctx.Err() == nil:
			return err
		case err == nil && (r != reason || m != message):
			reason, message = r, m
			tflog.Info(ctx, "Waiting for the ClusterQueue to be Active", map[string]any{"cluster_queue": k.Name, "reason": r, "message": m})
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return k.inactive(reason, message, ctx.Err())
		case <-timer.C:
		}
		delay = min(2*delay, e.poll.Max)
	}
}

// queueDrift is the drift of k's ClusterQueue that is not Active ("" when
// it is, or does not exist: its absence is drift of its own).
func (e *Kueue) queueDrift(ctx context.Context, k KueueSlicing) (string, error) {
	active, reason, message, err := e.queueState(ctx, k.Name)
	if err != nil || active || reason == "NotFound" {
		return "", err
	}
	return k.inactive(reason, message, nil).Error(), nil
}

// pollOf is the waiter's cadence, with kernel's defaults for zero values.
func pollOf(w kernel.Waiter) kernel.Waiter {
	if w.Initial <= 0 {
		w.Initial = kernel.DefaultPollInitial
	}
	if w.Max <= 0 {
		w.Max = kernel.DefaultPollMax
	}
	return w
}
