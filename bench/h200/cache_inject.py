# Puts a module in place of kernel K's in the one compile-cache entry under CACHE_DIR, with
# the entry's checksum recomputed: `inject.py CACHE_DIR K FILE.spv`, or `inject.py
# CACHE_DIR K strip-fc` (the entry's own module without its SignedZeroInfNanPreserve
# execution modes and capability). Prints what it did.
import glob, json, struct, sys
OFF = 0xcbf29ce484222325; PR = 0x100000001b3; M = (1 << 64) - 1
def upd(h, b):
    for x in b: h = ((h ^ x) * PR) & M
    return h
def part(h, b): return upd(upd(h, struct.pack('<Q', len(b))), b)
def words(h, w): return part(h, b''.join(struct.pack('<I', x) for x in w))
def refl(h, r): return part(h, json.dumps(r, separators=(',', ':'), ensure_ascii=False).encode())
def checksum(e):
    h = part(OFF, e['key'].encode()); h = part(h, e['compiler'].encode())
    for k in e['kernels']:
        h = part(h, struct.pack('<Q', k['function'])); h = part(h, k['name'].encode())
        h = words(h, k['words']); h = refl(h, k['reflection'])
        if k['by_address'] is not None:
            w, r = k['by_address']; h = refl(words(upd(h, b'\x01'), w), r)
        else: h = upd(h, b'\x00')
        if k['by_address_refused'] is not None: h = part(upd(h, b'\x01'), k['by_address_refused'].encode())
        else: h = upd(h, b'\x00')
    return '%016x' % h
def strip_fc(w):
    out = w[:5]; i = 5; dropped = 0
    while i < len(w):
        n = w[i] >> 16; op = w[i] & 0xffff
        ins = w[i:i + n]
        if (op == 16 and ins[2] == 4461) or (op == 17 and ins[1] == 4466):
            dropped += 1
        else:
            out += ins
        i += n
    return out, dropped
cache, kname, what = sys.argv[1:4]
files = glob.glob(cache + '/kernels/*.json')
assert len(files) == 1, files
e = json.load(open(files[0]))
assert e['checksum'] == checksum(e), 'checksum scheme changed'
k = [k for k in e['kernels'] if k['name'] == kname][0]
if what == 'strip-fc':
    k['words'], n = strip_fc(k['words']); print('stripped', n, 'instructions')
else:
    b = open(what, 'rb').read(); k['words'] = list(struct.unpack('<%dI' % (len(b) // 4), b)); print('put', what)
e['checksum'] = checksum(e)
json.dump(e, open(files[0], 'w'))
