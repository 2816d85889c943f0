"""What every bench/ script prints about the machine it measured on."""
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
