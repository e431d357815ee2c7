"""Check a truth.jsonl written by render.py: python check_truth.py DIR/truth.jsonl"""
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import board as bd  # noqa: E402
import glyphs  # noqa: E402

KINDS = {'W': 'wall', 'G': 'crate', 'H': 'house'}


def check(path):
    n = 0
    cnt, src = Counter(), Counter()
    with open(path) as fh:
        lines = fh.readlines()
    for line in lines:
        d = json.loads(line)
        n += 1
        city = d['city']
        assert len(city) == 7 and all(len(r) == 7 for r in city)
        for r in range(7):
            for c in range(7):
                ch = city[r][c]
                name = bd.cell_name(c, r)
                if (c, r) in bd.TOWERS:
                    assert ch == '#'
                elif (c, r) in bd.PRINTED_CRATES:
                    assert ch == 'G' and name not in d['styles']
                elif ch == '.':
                    assert name not in d['styles']
                else:
                    st = d['styles'][name]
                    kind = st.split('.')[0]
                    assert kind == KINDS.get(ch, 'church' if ch in '12345' else 'person'), (ch, st)
                    if ch == 'W':
                        assert bd.is_outer(c, r)
                    if kind in ('church', 'person'):
                        assert '|font:' in st or st.endswith('|strokes'), st
                    if '|font:' in st:
                        assert st.split('|font:')[1] not in glyphs.FORBIDDEN
                    cnt[st.split('|')[0]] += 1
                    src[st.split('|')[1] if '|' in st else '-'] += 1
        assert set(d['styles']) <= {bd.cell_name(c, r) for r in range(7) for c in range(7)}
    print(n, 'boards ok')
    print(len(cnt), 'styles')
    print(cnt.most_common())
    print(src.most_common(12))


if __name__ == '__main__':
    check(sys.argv[1])
