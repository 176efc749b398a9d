#!/bin/sh
# The guest image's ramdisk (/init): loads the modules Debian's cloud kernel has as modules
# but a guest needs at boot (virtio PCI, disk and network; the IDE CD-ROM and ISO 9660 of
# the config drive), mounts the root disk and hands over to its init. Modules are listed,
# dependencies first, in /modules.list when the image is built.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r module; do
  insmod "/lib/modules/$module" || echo "volperf ramdisk: insmod $module failed"
done < /modules.list
root=LABEL=volperf-root  # the image's root disk, whichever virtio disk it is
# shellcheck disable=SC2013  # its words, not its lines
for word in $(cat /proc/cmdline); do
  case "$word" in root=*) root=${word#root=} ;; esac
done
resolve() { case "$root" in /dev/*) echo "$root" ;; *) findfs "$root" 2>/dev/null ;; esac; }
waited=0
until device=$(resolve) && [ -b "$device" ]; do
  [ "$waited" -ge 100 ] && { echo "volperf ramdisk: no $root after 10 s"; exec sh; }
  sleep 0.1
  waited=$((waited + 1))
done
mkdir -p /newroot
mount -t ext4 "$device" /newroot || { echo "volperf ramdisk: cannot mount $device"; exec sh; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
