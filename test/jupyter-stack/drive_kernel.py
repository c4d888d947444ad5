"""Drives the Deskbook kernel through Debian's jupyter_client, the way Python
frontends (nbclient, jupyter console, the notebook server) do, and prints one
JSON object with what it saw. jupyter-client.test.ts asserts on that object.

Run with /usr/bin/python3 (the system Python that has jupyter_client), with
JUPYTER_PATH pointing at a prefix holding the deskbook kernelspec and
DESKBOOK_HOME at a scratch directory. argv[1] is the kernel's working directory,
argv[2] the prefix of its Unix sockets: the kernel runs over ipc, where no other process
can take one of its TCP ports before it binds them (KernelManager runs no restarter).
"""

import glob
import json
import os
import stat
import sys
import threading
import time

from jupyter_client.manager import KernelManager

TIMEOUT = 30  # seconds for any single reply

result = {"steps": []}


def step(name):
    # The last step reached tells the test where a failure happened.
    result["steps"].append(name)


def collect(msg_list):
    def hook(msg):
        if msg["msg_type"] not in ("status", "execute_input"):
            msg_list.append({"msg_type": msg["msg_type"], "content": msg["content"]})

    return hook


def summarize(reply, outputs):
    """The parts of an execution the test cares about, in JSON-friendly form."""
    content = reply["content"]
    stdout = "".join(o["content"]["text"] for o in outputs if o["msg_type"] == "stream" and o["content"]["name"] == "stdout")
    stderr = "".join(o["content"]["text"] for o in outputs if o["msg_type"] == "stream" and o["content"]["name"] == "stderr")
    results = [o["content"]["data"].get("text/plain") for o in outputs if o["msg_type"] == "execute_result"]
    errors = [{k: o["content"].get(k) for k in ("ename", "evalue")} for o in outputs if o["msg_type"] == "error"]
    return {
        "status": content["status"],
        "execution_count": content.get("execution_count"),
        "ename": content.get("ename"),
        "evalue": content.get("evalue"),
        "stdout": stdout,
        "stderr": stderr,
        "result": results[0] if results else None,
        "error_outputs": errors,
        "output_types": [o["msg_type"] for o in outputs],
    }


def run(kc, code, **kwargs):
    outputs = []
    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=collect(outputs), **kwargs)
    return summarize(reply, outputs)


def shell_reply(kc, msg_id):
    """The shell reply to msg_id, skipping replies to anything else."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        msg = kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg


def wait_for_busy(kc, msg_id):
    """Blocks until the kernel says it is busy with msg_id, i.e. the cell is running."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        if (
            msg["msg_type"] == "status"
            and msg["parent_header"].get("msg_id") == msg_id
            and msg["content"]["execution_state"] == "busy"
        ):
            return
    raise TimeoutError("the kernel never went busy for " + msg_id)


def drain_iopub(kc, msg_id):
    """Reads iopub until status idle for msg_id; returns the outputs in between."""
    outputs = []
    hook = collect(outputs)
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return outputs
        hook(msg)
    raise TimeoutError("no idle status for " + msg_id)


def interrupt_spinning_cell(km, kc):
    msg_id = kc.execute("while (true) {}")
    wait_for_busy(kc, msg_id)
    # Give the loop time to really spin, and check the heartbeat still answers meanwhile
    # (jupyter_client pings every second and calls a kernel dead after a missed beat).
    time.sleep(2.5)
    beating = kc.hb_channel.is_beating()
    started = time.monotonic()
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id)
    elapsed = time.monotonic() - started
    outputs = drain_iopub(kc, msg_id)
    summary = summarize(reply, outputs)
    summary["heartbeat_while_spinning"] = beating
    summary["interrupt_to_reply_seconds"] = round(elapsed, 3)
    return summary


def ask_for_input(kc):
    prompts = []

    def on_stdin(msg):
        # The handler runs on this thread; the reply goes back over the stdin channel.
        prompts.append({"prompt": msg["content"]["prompt"], "password": msg["content"]["password"]})
        kc.input("Ada" if not msg["content"]["password"] else "s3cret")

    name = run(
        kc,
        'const name = await input("Your name? ");\n'
        'const secret = await input.password("Token: ");\n'
        "`Hello, ${name}! Your token has ${secret.length} characters.`",
        allow_stdin=True,
        stdin_hook=on_stdin,
    )
    name["prompts"] = prompts
    refused = run(kc, 'await input("nobody can answer this")', allow_stdin=False)
    return {"answered": name, "without_stdin": refused}


def sockets(prefix):
    """The Unix sockets named `${prefix}-N` that exist now (one removed between listing and lstat is not)."""
    found = []
    for path in glob.glob(glob.escape(prefix) + "-*"):
        try:
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                found.append(os.path.basename(path))
        except FileNotFoundError:
            pass
    return sorted(found)


def history_tail(kc, n):
    msg_id = kc.history(hist_access_type="tail", n=n, raw=True, output=False)
    reply = shell_reply(kc, msg_id)
    return {"status": reply["content"]["status"], "history": reply["content"].get("history", [])}


def main():
    cwd, socket_prefix = sys.argv[1], sys.argv[2]
    km = KernelManager(kernel_name="deskbook", transport="ipc", ip=socket_prefix)
    kc = None
    try:
        step("start")
        spec = km.kernel_spec
        result["kernelspec"] = {
            "display_name": spec.display_name,
            "language": spec.language,
            "interrupt_mode": spec.interrupt_mode,
            "resource_dir_files": sorted(os.listdir(spec.resource_dir)),
        }
        km.start_kernel(cwd=cwd)
        first_process = km.provisioner.process
        result["first_pid"] = first_process.pid
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=TIMEOUT)
        result["connection"] = {"transport": km.transport, "ip": km.ip, "sockets": sockets(socket_prefix)}

        step("kernel_info")
        info = shell_reply(kc, kc.kernel_info())["content"]
        result["kernel_info"] = {
            "status": info.get("status"),
            "protocol_version": info.get("protocol_version"),
            "implementation": info.get("implementation"),
            "language_info": info.get("language_info"),
            "banner": info.get("banner"),
        }

        step("execute")
        result["cells"] = {
            "define": run(kc, 'const kept = "still here";\nlet total = 40;'),
            "use": run(kc, "total += 2;\ntotal"),
            "log": run(kc, 'console.log(`${kept}: ${total}`);\nconsole.log("second line")'),
            "cwd": run(kc, "process.cwd()"),
            "throws": run(kc, 'throw new TypeError("nope")'),
        }

        step("interrupt")
        result["interrupt"] = interrupt_spinning_cell(km, kc)
        result["after_interrupt"] = run(kc, "`${kept}, total=${total}`")

        step("input")
        result["input"] = ask_for_input(kc)

        step("history_before_restart")
        result["history_before_restart"] = history_tail(kc, 50)

        step("restart")
        km.restart_kernel(now=False)
        result["restart_new_process"] = km.provisioner.process.pid != first_process.pid
        # The old process has exited by now; 0 means it shut down cleanly on request.
        result["restart_old_exit_code"] = first_process.poll()
        kc.wait_for_ready(timeout=TIMEOUT)
        result["after_restart"] = {
            "kept": run(kc, "typeof kept"),
            "total": run(kc, "typeof total"),
            "fresh": run(kc, "6 * 7"),
        }
        result["history_after_restart"] = history_tail(kc, 50)

        step("shutdown")
        last_process = km.provisioner.process
        started = time.monotonic()
        km.shutdown_kernel(now=False)
        result["shutdown"] = {
            "seconds": round(time.monotonic() - started, 3),
            "exit_code": last_process.poll(),
            "is_alive": km.is_alive(),
            "sockets_left": sockets(socket_prefix),
        }
        step("done")
    except Exception as error:  # reported to the test rather than lost in a traceback
        result["error"] = f"{type(error).__name__}: {error}"
    finally:
        if kc is not None:
            kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    print(json.dumps(result))


if __name__ == "__main__":
    # A watchdog so a wedged kernel cannot hang the test run; the test also has a timeout.
    watchdog = threading.Timer(150, lambda: os._exit(3))
    watchdog.daemon = True
    watchdog.start()
    main()
    sys.stdout.flush()
    # Skip interpreter teardown: jupyter_client's __del__ hooks log after logging is gone.
    os._exit(0)
