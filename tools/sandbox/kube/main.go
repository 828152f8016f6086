// Command kube is the sandbox's Kubernetes control plane and kubelets in
// one program, as k3s builds its own: kube-apiserver, kube-scheduler and
// kube-controller-manager (Kubernetes) and kwok (the nodes' kubelets),
// each run through its own published command package, exactly as its
// release's main runs it. One program links once where four linked apart:
// in a cold build on a 2-core AMD EPYC the four links took 64 s, the one
// link of all four 19 s, and the program is 162 MB on disk against 358 MB.
//
// The part runs by the name the program is called by (bin/kube-apiserver
// and the others are links to bin/kube), or by its first argument
// (`kube kube-scheduler --help`).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	_ "time/tzdata" // as kube-apiserver's and kube-controller-manager's mains: CronJob time zones

	"github.com/spf13/pflag"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // as the Kubernetes mains: the JSON log format
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // as the Kubernetes mains: client-go's metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // as the Kubernetes mains: the version metric
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kwokconfig "sigs.k8s.io/kwok/pkg/config"
	kwokcmd "sigs.k8s.io/kwok/pkg/kwok/cmd"
	kwoklog "sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

// parts are the programs this one is, by name.
var parts = map[string]func() int{
	"kube-apiserver":          func() int { return cli.Run(apiserver.NewAPIServerCommand()) },
	"kube-scheduler":          func() int { return cli.Run(scheduler.NewSchedulerCommand()) },
	"kube-controller-manager": func() int { return cli.Run(controllermanager.NewControllerManagerCommand()) },
	"kwok":                    kwok,
}

func main() {
	name := filepath.Base(os.Args[0])
	if _, ok := parts[name]; !ok && len(os.Args) > 1 {
		if _, ok := parts[os.Args[1]]; ok {
			name = os.Args[1]
			os.Args = append([]string{name}, os.Args[2:]...)
		}
	}
	run, ok := parts[name]
	if !ok {
		names := make([]string, 0, len(parts))
		for n := range parts {
			names = append(names, n)
		}
		fmt.Fprintf(os.Stderr, "kube: run as one of %s (a link of that name, or its first argument)\n", strings.Join(names, ", "))
		os.Exit(2)
	}
	os.Exit(run())
}

// kwok runs kwok as sigs.k8s.io/kwok/cmd/kwok's main does.
func kwok() int {
	// The Kubernetes parts' packages register a global --version of their
	// own (k8s.io/component-base/version/verflag, at init), which kwok's
	// program does not link: cobra would refuse to run kwok's root
	// command, whose --version is a bool. kwok gets the global flags
	// without it, as in its own program.
	global := pflag.NewFlagSet(os.Args[0], pflag.ExitOnError)
	pflag.CommandLine.VisitAll(func(f *pflag.Flag) {
		if f.Name != "version" {
			global.AddFlag(f)
		}
	})
	pflag.CommandLine = global

	flagset := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flagset.ParseErrorsAllowlist.UnknownFlags = true
	flagset.Usage = func() {}

	ctx := signals.SetupSignalContext()
	ctx, logger := kwoklog.InitFlags(ctx, flagset)
	ctx, err := kwokconfig.InitFlags(ctx, flagset)
	if err != nil {
		_, _ = os.Stderr.Write([]byte(flagset.FlagUsages()))
		logger.Error("Init config flags", "err", err)
		return 1
	}
	command := kwokcmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flagset)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("Execute exit", "err", err)
		return 1
	}
	return 0
}
