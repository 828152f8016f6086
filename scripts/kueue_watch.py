#!/usr/bin/env python3
"""Follow a JobSet on the Kueue path from its queue to its completion.

    kueue_watch.py NAMESPACE JOBSET [--timeout SECONDS]

Uses kubectl (KUBECONFIG from the environment). Prints, as they happen, the
steps of the JobSet's Kueue Workload (queued, quota reserved with the
topology assignment, the slice admission check's state, admitted, finished),
the Slices the check makes and their states, where the pods of each Job
run, the JobSet's completion and its Slices' deletion. Fails (exit 1) when a
Job's pods do not all run on one of the Workload's Slices, when two Jobs
share a Slice, when the Slices are not deleted after the JobSet completes,
or on timeout.
"""
import json
import subprocess
import sys
import time

SLICE_LABEL = "cloud.google.com/gke-tpu-slice"
OWNER_NS = "accelerator.gke.io/owner-workload-namespace"
OWNER_NAME = "accelerator.gke.io/owner-workload-name"


def kubectl(*args):
    out = subprocess.run(["kubectl", *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def condition(obj, typ):
    for c in obj.get("status", {}).get("conditions", []):
        if c["type"] == typ:
            return c
    return None


def is_true(obj, typ):
    c = condition(obj, typ)
    return c is not None and c["status"] == "True"


def ready_reason(s):
    c = condition(s, "Ready")
    return c.get("reason", "") if c else "CREATED"


def main():
    args = sys.argv[1:]
    timeout = 180.0
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    ns, jobset = args
    began = time.time()
    seen = set()
    slice_states = {}
    job_slices = {}  # job index -> set of slices its pods ran on
    completed_at = None
    workload = None
    last = ""

    def say(key, text):
        if key not in seen:
            seen.add(key)
            print("  %6.2fs  %s" % (time.time() - began, text), flush=True)

    while True:
        if time.time() - began > timeout:
            print("timed out after %.0fs: %s" % (timeout, last), file=sys.stderr)
            return 1
        wls = [w for w in kubectl("get", "workloads.kueue.x-k8s.io", "-n", ns, "-o", "json")["items"]
               if any(o.get("kind") == "JobSet" and o.get("name") == jobset for o in w["metadata"].get("ownerReferences", []))]
        if wls:
            wl = wls[0]
            workload = wl["metadata"]["name"]
            say("wl", "Workload %s queued in LocalQueue %s" % (workload, wl["spec"].get("queueName", "")))
            c = condition(wl, "QuotaReserved")
            if c and c["status"] == "False" and c.get("message"):
                say("pending:" + c["message"], "waiting: %s" % c["message"])
            if is_true(wl, "QuotaReserved"):
                psa = wl.get("status", {}).get("admission", {}).get("podSetAssignments", [])
                domains = sum(s.get("domainCount", 0) for p in psa for s in (p.get("topologyAssignment") or {}).get("slices", []))
                say("quota", "quota reserved in ClusterQueue %s; topology-aware scheduling assigned %d nodes"
                    % (wl["status"]["admission"].get("clusterQueue", ""), domains))
            for ac in wl.get("status", {}).get("admissionChecks", []):
                say("check:%s:%s" % (ac.get("state"), ac.get("message")), "slice admission check %s: %s %s" % (ac["name"], ac.get("state"), ac.get("message", "")))
            if is_true(wl, "Admitted"):
                say("admitted", "Workload admitted: Kueue starts the Jobs")
        slices = []
        if workload:
            slices = [s for s in kubectl("get", "slices.accelerator.gke.io", "-o", "json")["items"]
                      if s["metadata"].get("annotations", {}).get(OWNER_NS) == ns and s["metadata"]["annotations"].get(OWNER_NAME) == workload]
        for s in slices:
            name, state = s["metadata"]["name"], ready_reason(s)
            if slice_states.get(name) != state:
                slice_states[name] = state
                say("slice:%s:%s" % (name, state), "Slice %s (%s, partitions %s): %s" % (
                    name, s["spec"]["topology"], ",".join(p[:8] + "…" for p in s["spec"]["partitionIds"]), state))
        pods = kubectl("get", "pods", "-n", ns, "-l", "jobset.sigs.k8s.io/jobset-name=" + jobset, "-o", "json")["items"]
        # Until the JobSet completes its Slices (and their node labels)
        # live: a pod that ran or runs shows its slice by its node's label.
        running = [p for p in pods if p["spec"].get("nodeName") and p["status"].get("phase") in ("Running", "Succeeded")]
        if running and completed_at is None:
            nodes = {n["metadata"]["name"]: n for n in kubectl("get", "nodes", "-l", SLICE_LABEL, "-o", "json")["items"]}
            for p in running:
                job = p["metadata"]["labels"].get("jobset.sigs.k8s.io/job-index", "?")
                node = nodes.get(p["spec"]["nodeName"])
                on = node["metadata"]["labels"].get(SLICE_LABEL, "") if node else ""
                # A finished pod's node loses its label when its slice is
                # dismantled; a running pod's node must have one.
                if on or p["status"].get("phase") == "Running":
                    job_slices.setdefault(job, set()).add(on)
        bound = sum(1 for p in pods if p["spec"].get("nodeName"))
        if pods and bound == len(pods):
            say("bound:%d" % bound, "%d pods bound by the scheduler" % bound)
        js = kubectl("get", "jobsets.jobset.x-k8s.io", "-n", ns, jobset, "-o", "json")
        if is_true(js, "Completed") and completed_at is None:
            completed_at = time.time()
            say("completed", "JobSet completed")
            for job, on in sorted(job_slices.items()):
                print("            Job %s ran on Slice %s" % (job, ", ".join(sorted(on)) or "?"))
        if completed_at is not None and not slices and slice_states:
            say("gone", "Slices deleted by the slice admission check (%.2fs after completion)" % (time.time() - completed_at))
            break
        last = "Workload %s, Slices %s, %d/%d pods bound, completed %s" % (workload, slice_states, bound, len(pods), completed_at is not None)
        time.sleep(0.25)

    problems = []
    used = {}
    for job, on in sorted(job_slices.items()):
        if len(on) != 1 or "" in on or not on <= set(slice_states):
            problems.append("Job %s ran on %s, not on one Slice of its Workload" % (job, sorted(on)))
            continue
        s = next(iter(on))
        if s in used:
            problems.append("Jobs %s and %s share Slice %s" % (used[s], job, s))
        used[s] = job
    if len(job_slices) != len(slice_states):
        problems.append("%d Job(s) seen running, %d Slice(s) made" % (len(job_slices), len(slice_states)))
    for p in problems:
        print("  " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
