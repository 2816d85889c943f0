"""What every bench/ script prints about the machine it measured on, and how
it writes its results."""
import json
import os


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
    return f"{name} ({isa}, {os.cpu_count()} hardware threads)"


def write_results(out, stem, markdown, data, indent=1):
    """Writes a run's table to OUT/STEM.md and its data to OUT/STEM.json."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, stem + ".md"), "w") as f:
        f.write(markdown)
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump(data, f, indent=indent)
