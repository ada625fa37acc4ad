#!/usr/bin/env bash
# Scripts/deb-copyright.sh BUILD_PATH
#
# Prints the Debian package's copyright file (machine-readable format 1.0): taskcal's own
# license, then what the static binary carries inside it: the Swift runtime and Foundation, and
# the Swift packages SwiftPM checked out into BUILD_PATH, each with the license its LICENSE file
# states. Used by Scripts/build-deb.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
checkouts="$1/checkouts"
[ -d "$checkouts" ] || { echo "deb-copyright: no $checkouts (build first)" >&2; exit 1; }

# Packages that are checked out but not linked into the binary: the tests' property-based
# testing and the DocC plugin.
not_linked=" swift-property-based swift-docc-plugin swift-docc-symbolkit "

# The license a package's LICENSE file states, as Debian names it.
license_of() {
    local file
    file=$(find "$1" -maxdepth 1 \( -iname 'LICENSE*' -o -iname 'COPYING*' \) | sort | head -n 1)
    if [ -z "$file" ]; then
        echo "unknown"
    elif grep -q "Apache License" "$file" && grep -q "Version 2.0" "$file"; then
        echo "Apache-2.0"
    elif grep -qi "Permission is hereby granted, free of charge" "$file"; then
        echo "Expat"
    else
        echo "unknown"
    fi
}

embedded=""
licenses=" Apache-2.0 "
for dir in "$checkouts"/*/; do
    name=$(basename "$dir")
    case "$not_linked" in *" $name "*) continue ;; esac
    license=$(license_of "$dir")
    [ "$license" != unknown ] || { echo "deb-copyright: no license known for $name" >&2; exit 1; }
    version=$(git -C "$dir" describe --tags --exact-match 2>/dev/null || echo "")
    embedded+=" ${name}${version:+ $version} ($license),"
    case "$licenses" in *" $license "*) ;; *) licenses+="$license " ;; esac
done
embedded=${embedded%,}

cat <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: taskcal
EOF
# The list of what is linked in, folded for the Comment field (lines of a field start with a
# space).
echo "Comment: /usr/bin/taskcal is linked statically with the Swift runtime, Foundation and"
echo " Dispatch (Apache-2.0 with the Swift runtime library exception, Copyright The Swift"
echo " Project Authors), Foundation's copy of ICU (Unicode license, Copyright Unicode, Inc."
echo " and others), and these Swift packages (each Copyright its authors, under the license"
echo " named):$embedded." | fold -s -w 78 | sed '2,$s/^/ /'
echo " swift-crypto and swift-nio-ssl carry BoringSSL (OpenSSL and ISC licenses, Copyright"
echo " the OpenSSL Project and Google Inc.). The full texts are in each project's source."
cat <<'EOF'

Files: *
Copyright: 2026 The taskcal developers
License: Apache-2.0

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not
 use this file except in compliance with the License. You may obtain a copy of
 the License at http://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software
 distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
 WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
 License for the specific language governing permissions and limitations under
 the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can
 be found in "/usr/share/common-licenses/Apache-2.0".
EOF
case "$licenses" in
*" Expat "*)
    cat <<'EOF'

License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 SOFTWARE.
EOF
    ;;
esac
