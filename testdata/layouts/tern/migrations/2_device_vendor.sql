CREATE UNIQUE INDEX devices_vendor_serial ON devices (vendor, serial);
---- create above / drop below ----
DROP INDEX devices_vendor_serial;
