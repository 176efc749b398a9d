-- Runs one of sysbench's stock OLTP tests and survives the database server going away.
--
-- sysbench 1.0.20 linked with MariaDB's client library (Debian's build) crashes when it
-- reconnects a lost connection itself (akopytov/sysbench#527: it reuses a closed MYSQL
-- handle). volperf therefore leaves connection errors fatal and, here, catches them in
-- the worker thread, opens a brand-new connection once the server answers again and
-- prepares the test's statements anew. Intervals with no transactions show the pause.
--
-- VOLPERF_SYSBENCH_TEST names the stock test (oltp_read_write, oltp_read_only, ...);
-- VOLPERF_RECONNECT_S bounds how long one worker keeps trying to reconnect.

local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int usec);]]

local test = os.getenv("VOLPERF_SYSBENCH_TEST") or "oltp_read_write"
require(test)

local stock_event = event
local stock_thread_init = thread_init
local patience_s = tonumber(os.getenv("VOLPERF_RECONNECT_S") or "300")

local function reconnect()
   pcall(function() con:disconnect() end)
   local deadline = os.time() + patience_s
   while true do
      local ok, err = pcall(stock_thread_init)
      if ok then
         io.stderr:write("volperf: worker reconnected\n")
         return
      end
      if os.time() > deadline then
         error("volperf: no connection after " .. patience_s .. " s: " .. tostring(err))
      end
      ffi.C.usleep(100000)
   end
end

function event(thread_id)
   local ok, err = pcall(stock_event, thread_id)
   if ok then
      return
   end
   if type(err) == "table" then
      error(err, 0)  -- sysbench's own restart-event signal for ignorable errors
   end
   io.stderr:write("volperf: worker lost its connection: " .. tostring(err) .. "\n")
   reconnect()
end
