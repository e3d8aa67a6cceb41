# Sourced at the start of every device call: the Vulkan loader (carried as .gl/*.deb, see
# /work/.library/device/README.md) and a record of the machine. It unpacks packages into /:
# meant for the lent machine only (elsewhere set SKIP_SETUP=1 for the scripts that source it).
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if ! ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json >/dev/null 2>&1; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export XDG_RUNTIME_DIR=/tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
nproc
# The binary's own libraries (fontconfig, freetype, png, … for figures), from Debian 12 as built
# here (Ubuntu's image lacks fontconfig).
mkdir -p /tmp/libs && for f in .dev/libs/*.deb; do dpkg -x "$f" /tmp/libs; done
export LD_LIBRARY_PATH=/tmp/libs/usr/lib/x86_64-linux-gnu:/tmp/libs/lib/x86_64-linux-gnu
