#!/usr/bin/env python3
"""Follow a JobSet on the flex-start flavor of a Kueue queue (DWS).

    kueue_flex_watch.py NAMESPACE JOBSET FLAVOR [--timeout SECONDS]

Uses kubectl (KUBECONFIG from the environment). Prints, as they happen and
with the seconds since the start, the steps of the JobSet's Kueue Workload:
quota reserved on FLAVOR, its ProvisioningRequest Accepted then Provisioned
(GKE's Dynamic Workload Scheduler), admitted, its pods bound to the nodes
DWS made (queued, flex-start), finished. Fails (exit 1) when the Workload is
admitted on another flavor, when a pod runs on a node DWS did not make, when
a Slice names the Workload, or on timeout.
"""
import json
import subprocess
import sys
import time

OWNER_NAME = "accelerator.gke.io/owner-workload-name"


def kubectl(*args):
    out = subprocess.run(["kubectl", *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def condition(obj, typ):
    for c in obj.get("status", {}).get("conditions", []):
        if c["type"] == typ:
            return c
    return {}


def main():
    args = sys.argv[1:]
    timeout = 120.0
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    ns, jobset, flavor = args
    start = time.monotonic()
    seen = set()

    def say(key, text):
        if key not in seen:
            seen.add(key)
            print("  %5.1fs  %s" % (time.monotonic() - start, text), flush=True)

    while time.monotonic() - start < timeout:
        wls = [w for w in kubectl("get", "workloads.kueue.x-k8s.io", "-n", ns, "-o", "json")["items"]
               if any(o["kind"] == "JobSet" and o["name"] == jobset for o in w["metadata"].get("ownerReferences", []))]
        if not wls:
            time.sleep(0.2)
            continue
        wl = wls[0]
        name = wl["metadata"]["name"]
        say("queued", "Workload %s queued" % name)
        assignments = wl.get("status", {}).get("admission", {}).get("podSetAssignments", [])
        if assignments:
            got = assignments[0].get("flavors", {}).get("google.com/tpu", "")
            if got != flavor:
                print("Workload %s got flavor %s, want %s" % (name, got, flavor), file=sys.stderr)
                return 1
            say("quota", "quota reserved on flavor %s" % got)
        for req in kubectl("get", "provisioningrequests.autoscaling.x-k8s.io", "-n", ns, "-o", "json")["items"]:
            if name not in req["metadata"]["name"]:
                continue
            for typ in ("Accepted", "Provisioned", "Failed"):
                c = condition(req, typ)
                if c.get("status") == "True":
                    say("pr-" + typ, "ProvisioningRequest %s %s: %s" % (req["metadata"]["name"], typ, c.get("message", "")))
        if condition(wl, "Admitted").get("status") == "True":
            say("admitted", "admitted (the %s check Ready)" % flavor)
        pods = kubectl("get", "pods", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name=" + jobset, "-o", "json")["items"]
        bound = [p for p in pods if p["spec"].get("nodeName")]
        if pods and len(bound) == len(pods) and "bound" not in seen:
            where = []
            for p in bound:
                try:
                    node = kubectl("get", "node", p["spec"]["nodeName"], "-o", "json")
                except subprocess.CalledProcessError:
                    continue  # gone once the run ended
                labels = node["metadata"]["labels"]
                if labels.get("cloud.google.com/gke-queued") != "true" or labels.get("cloud.google.com/gke-tpu-slice"):
                    print("pod %s on node %s, not a DWS node: %s" % (p["metadata"]["name"], node["metadata"]["name"], labels), file=sys.stderr)
                    return 1
                where.append("%s (pool %s)" % (node["metadata"]["name"], labels.get("cloud.google.com/gke-nodepool")))
            say("bound", "%d pods bound to DWS nodes: %s" % (len(bound), ", ".join(sorted(where))))
        slices = [s for s in kubectl("get", "slices.accelerator.gke.io", "-o", "json")["items"]
                  if s["metadata"].get("annotations", {}).get(OWNER_NAME) == name]
        if slices:
            print("Slices %s for a flex-start workload" % [s["metadata"]["name"] for s in slices], file=sys.stderr)
            return 1
        if condition(wl, "Finished").get("status") == "True":
            say("finished", "finished, no Slice made")
            return 0
        time.sleep(0.2)
    print("timed out after %.0fs; steps seen: %s" % (timeout, sorted(seen)), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
