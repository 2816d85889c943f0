"""What every bench/ script prints about the machine it measured on, and how
it writes its results."""
import json
import os
import subprocess


def cpu_name():
    """This machine's CPU model name, its vector ISA and hardware threads."""
    name, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and name == "unknown CPU":
                    name = value.strip()
                if key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    isa = ("AVX-512" if "avx512f" in flags else
           "AVX2" if "avx2" in flags else "SSE")
    # A VM's model name may say only "AMD EPYC": LLVM's name for the host
    # CPU (znver5, emeraldrapids) tells the generation, which the code is
    # tuned for.
    host = llvm_host_cpu()
    return f"{name} ({isa}{', LLVM: ' + host if host else ''}, {os.cpu_count()} hardware threads)"


def llvm_host_cpu():
    """LLVM's name for this machine's CPU (llc --version), or None."""
    try:
        out = subprocess.run(["/usr/lib/llvm-22/bin/llc", "--version"],
                             capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "Host CPU":
            return value.strip()
    return None


def write_results(out, stem, markdown, data, indent=1):
    """Writes a run's table to OUT/STEM.md and its data to OUT/STEM.json."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, stem + ".md"), "w") as f:
        f.write(markdown)
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump(data, f, indent=indent)
