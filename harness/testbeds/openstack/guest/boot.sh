#!/bin/sh
# The volperf guest's system set-up, from the OpenStack config drive (label config-2, as
# Nova writes it with force_config_drive): hostname, the first interface's static address
# and gateway (the interfaces(5) file Nova injects with flat_injected), and /dev/disk/by-id
# links from each virtio disk's serial (no udev here), kept up to date for hot-plugged
# volumes. What cloud-init would do for this image's RAW user_data, in busybox sh.
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /run /tmp /mnt/config
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -o remount,rw /
ip link set lo up

by_id_links() {
  while :; do
    for disk in /sys/block/vd*; do
      serial=$(cat "$disk/serial" 2>/dev/null) || continue
      [ -n "$serial" ] || continue
      link="/dev/disk/by-id/virtio-$serial"
      [ -e "$link" ] || { mkdir -p /dev/disk/by-id; ln -sf "../../${disk##*/}" "$link"; }
    done
    sleep 1
  done
}
by_id_links &

config=""
for device in /dev/sr0 /dev/sr1 /dev/vdb; do
  [ -b "$device" ] || continue
  if mount -o ro "$device" /mnt/config 2>/dev/null; then
    [ -f /mnt/config/openstack/latest/meta_data.json ] && { config=/mnt/config; break; }
    umount /mnt/config
  fi
done
if [ -z "$config" ]; then
  echo "volperf guest: no config drive found"
  exit 0
fi
meta=$config/openstack/latest/meta_data.json
name=$(sed -n 's/.*"hostname": *"\([^"]*\)".*/\1/p' "$meta" | cut -d. -f1)
[ -n "$name" ] && hostname "$name"

# the interfaces(5) file: {"network_config": {"content_path": "/content/0000"}}
content=$(sed -n 's/.*"network_config": *{[^}]*"content_path": *"\([^"]*\)".*/\1/p' "$meta")
if [ -n "$content" ] && [ -f "$config/openstack$content" ]; then
  awk '$1 == "iface" && $3 == "inet" { iface = $2 }
       iface != "" && $1 == "address" { print "address", iface, $2 }
       iface != "" && $1 == "netmask" { print "netmask", iface, $2 }
       iface != "" && $1 == "gateway" { print "gateway", iface, $2 }' \
    "$config/openstack$content" > /run/network
  while read -r what iface value; do
    case "$what" in
      address) ip link set "$iface" up; address=$value ;;
      netmask) ip addr add "$address/$(ipcalc -p "$address" "$value" | cut -d= -f2)" dev "$iface" ;;
      gateway) ip route add default via "$value" dev "$iface" ;;
    esac
  done < /run/network
  echo "volperf guest: network: $(ip -4 -o addr show | awk '$2 != "lo" { print $2, $4 }')"
fi
user_data=$config/openstack/latest/user_data
[ -f "$user_data" ] && cp "$user_data" /run/user_data
umount /mnt/config
echo "volperf guest: $(uname -sr) up in $(cut -d' ' -f1 /proc/uptime) s"
