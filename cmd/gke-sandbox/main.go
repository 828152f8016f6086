// Command gke-sandbox runs the local GKE sandbox: a real kube-apiserver
// with the Slice CRD and Kueue's CRDs, emulated GKE and Compute Engine APIs
// over a TPU7x reservation inventory, and a slice-controller simulator. It
// prints what a client needs, writes it into -dir, and runs until SIGINT or
// SIGTERM, when it stops every process it started.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gke-sandbox:", err)
		os.Exit(1)
	}
}

func run() error {
	dir := flag.String("dir", filepath.Join(".cache", "sandbox"), "working directory: certificates, etcd data, logs, kubeconfig, sandbox.json (recreated at start)")
	inventory := flag.String("inventory", "default", `reservation inventory: "default" (2 blocks of 4 sub-blocks, and a second reservation), "pod" (one block of 144 sub-blocks), or a YAML file`)
	faults := flag.String("faults", "", `faults to inject from the start, as JSON (see GET /sandbox/faults), e.g. '{"operationDelayMs":2000}'`)
	quiet := flag.Bool("quiet", false, "print only the path of sandbox.json once ready")
	sliceCheck := flag.String("slice-check", sandbox.SliceCheckEmulated, `who runs Kueue's slice admission check (accelerator.gke.io/slice): "emulated" (the sandbox's emulation of the open-source controller) or "external" (none in the sandbox: run the open-source controller against it yourself, see docs/guides/sandbox.md)`)
	flag.Parse()
	if *sliceCheck != sandbox.SliceCheckEmulated && *sliceCheck != sandbox.SliceCheckExternal {
		return fmt.Errorf("-slice-check %q: want %q or %q", *sliceCheck, sandbox.SliceCheckEmulated, sandbox.SliceCheckExternal)
	}

	inv, err := sandbox.LoadInventory(*inventory)
	if err != nil {
		return err
	}
	opts := sandbox.Options{Dir: *dir, Inventory: inv, SliceCheck: *sliceCheck}
	if *faults != "" {
		if err := json.Unmarshal([]byte(*faults), &opts.Faults); err != nil {
			return fmt.Errorf("-faults: %w", err)
		}
	}
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	started := time.Now()
	if !*quiet {
		fmt.Fprintf(os.Stderr, "Starting the GKE sandbox in %s (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, JobSet, Kueue, emulated GKE and Compute APIs, slice controller)...\n", *dir)
	}
	sb, err := sandbox.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer sb.Stop()
	infoFile, err := sb.WriteInfo()
	if err != nil {
		return err
	}

	if *quiet {
		fmt.Println(infoFile)
	} else {
		i := sb.Info()
		fmt.Printf(`GKE sandbox ready in %s.

  Project / region / zone   %s / %s / %s
  Cluster                   %s (reservation sub-blocks: %d)
  GKE and Compute APIs      %s
  Kubernetes API            %s
  Kueue                     %s (its controller, CRDs and webhooks; logs kueue.log, slice-admission-check.log)
  Slice admission check     %s
  JobSet                    %s (the controller, its CRDs and webhooks; log in jobset.log)
  Kubeconfig                %s
  CA certificate            %s
  Access token              in %s (and sandbox.env)

Point the provider at it:   source %s
  or use the provider block in %s
gcloud and kubectl:         source %s (a gcloud configuration of its own)
Try:                        kubectl --kubeconfig %s get crd slices.accelerator.gke.io
Faults:                     curl -H "Authorization: Bearer $GOOGLE_OAUTH_ACCESS_TOKEN" %ssandbox/faults

Press Ctrl-C to stop; every process is stopped with it.
`, time.Since(started).Round(time.Millisecond), i.Project, i.Region, i.Zone, i.Cluster, countSubBlocks(inv), i.GoogleURL, i.KubeHost, i.KueueVersion, sliceCheckNote(*sliceCheck), cmp.Or(i.JobSetVersion, "off"), i.Kubeconfig, i.CAFile,
			infoFile, filepath.Join(*dir, "sandbox.env"), filepath.Join(*dir, "provider.tf.example"), filepath.Join(*dir, "cli.env"),
			i.Kubeconfig, i.GoogleURL)
	}
	<-ctx.Done()
	if !*quiet {
		fmt.Fprintln(os.Stderr, "\nStopping the sandbox...")
	}
	return nil
}

// sliceCheckNote says who serves the slice admission check.
func sliceCheckNote(mode string) string {
	if mode == sandbox.SliceCheckExternal {
		return "external: none in the sandbox; run the open-source controller against it (docs/guides/sandbox.md)"
	}
	return "emulated (as the open-source controller behaves)"
}

func countSubBlocks(inv *sandbox.Inventory) int {
	n := 0
	for _, r := range inv.Reservations {
		for _, b := range r.Blocks {
			n += len(b.SubBlocks)
		}
	}
	return n
}
