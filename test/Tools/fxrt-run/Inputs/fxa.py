"""Rewrites .fxa artifacts for the fxrt-run tests: edits the manifest or a
header field, then reseals the file (manifest size, file size and the FNV-1a
checksum), so that fxrt-run gets past the header checks to the one under
test.

  fxa.py IN OUT two-entries   the entry twice, the copy named NAME2
  fxa.py IN OUT no-entries    an artifact with no entries
  fxa.py IN OUT no-targets    the entry without any target (code for a
                              target this runtime does not know)
  fxa.py IN OUT set-cpu KEY JSON
                              member KEY of the entry's CPU code set to the
                              JSON value
  fxa.py IN OUT set-vulkan-step N KEY JSON
                              member KEY of step N of the entry's Vulkan
                              program set to the JSON value
  fxa.py IN OUT version N     header format version N
  fxa.py IN OUT flip OFFSET   one byte flipped, not resealed
  fxa.py IN manifest          print the manifest
"""
import copy
import json
import struct
import sys

HEADER = 64


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def reseal(data):
    struct.pack_into("<Q", data, 48, fnv1a64(data[HEADER:]))


def main():
    src, *args = sys.argv[1:]
    data = bytearray(open(src, "rb").read())
    offset, size = struct.unpack_from("<QQ", data, 24)
    manifest = json.loads(data[offset:offset + size])
    if args == ["manifest"]:
        print(json.dumps(manifest, indent=1))
        return
    out, command, *rest = args
    if command == "version":
        struct.pack_into("<I", data, 16, int(rest[0]))
    elif command == "flip":
        data[int(rest[0])] ^= 0xFF
    else:
        entries = manifest["entries"]
        if command == "two-entries":
            second = copy.deepcopy(entries[0])
            second["name"] += "2"
            entries.append(second)
        elif command == "no-entries":
            entries.clear()
        elif command == "no-targets":
            entries[0]["targets"] = {"tpu": {}}
        elif command == "set-cpu":
            entries[0]["targets"]["cpu"][rest[0]] = json.loads(rest[1])
        elif command == "set-vulkan-step":
            step = entries[0]["targets"]["vulkan"]["steps"][int(rest[0])]
            step[rest[1]] = json.loads(rest[2])
        else:
            sys.exit("unknown command " + command)
        text = json.dumps(manifest).encode()
        data = data[:offset] + text
        struct.pack_into("<QQ", data, 32, len(text), len(data))
        reseal(data)
    open(out, "wb").write(data)


main()
