# PEP 701 f-strings (3.12 only): quote reuse, backslashes, comments, deep nesting.
songs = ["a", "b"]
a = f"{", ".join(songs)}"
b = f"{'\n'.join(songs)}"
c = f"{f"{f"{f"{1}"}"}"}"
d = f"{
    songs[0]  # a comment
}"
e = f"{"\N{BULLET}"} {songs!r}"
