# Charge routes on ActiveRecord (Debian's ruby-activerecord, ruby-pg) and
# WEBrick (ruby-webrick), for the race probe's ground-truth suite. Each
# route counts its own effect, a row of its own charges table, which
# GET /<route>/effects?key=K and GET /<route>/doubled report.
#
#   effect-first  Charge.create!, work, then Claim.create! on a table whose
#                 primary key is the key: ActiveRecord::RecordNotUnique
#                 answers 409, after the charge (broken, even for a retry
#                 in sequence).
#   one-tx        Claim.create! and the charge in one transaction: a racing
#                 duplicate's INSERT waits on the winner's uncommitted key
#                 and raises RecordNotUnique once the winner commits (409,
#                 sound; its losers take as long as its winners).
#
# Usage: ruby gate.rb DATABASE_URL. It creates its tables, prints the port
# it listens on (127.0.0.1; WEBrick runs a thread per request), then serves
# until killed.
require 'active_record'
require 'json'
require 'webrick'

# Seconds of work per charge, as an API call to a payment provider would take
# (GATE_WORK_MS, default 6).
WORK = Float(ENV.fetch('GATE_WORK_MS', '6')) / 1000
ROUTES = %w[effect_first one_tx].freeze

ActiveRecord::Base.logger = nil
ActiveRecord::Base.establish_connection("#{ARGV.fetch(0)}#{ARGV[0].include?('?') ? '&' : '?'}pool=20")

ActiveRecord::Schema.verbose = false
ActiveRecord::Schema.define do
  ROUTES.each do |r|
    create_table("#{r}_charges", if_not_exists: true) { |t| t.text :idempotency_key, null: false }
    create_table("#{r}_claims", id: false, if_not_exists: true) { |t| t.text :idempotency_key, null: false, primary_key: true }
  end
end

MODELS = ROUTES.to_h do |r|
  charge = Class.new(ActiveRecord::Base) { self.table_name = "#{r}_charges" }
  claim = Class.new(ActiveRecord::Base) do
    self.table_name = "#{r}_claims"
    self.primary_key = 'idempotency_key'
  end
  [r, [charge, claim]]
end

def charge(model, key)
  model.create!(idempotency_key: key)
  sleep WORK
end

def answer(res, status, body)
  res.status = status
  res['Content-Type'] = 'application/json'
  res.body = JSON.generate(body)
end

server = WEBrick::HTTPServer.new(BindAddress: '127.0.0.1', Port: 0, Logger: WEBrick::Log.new(File::NULL), AccessLog: [])
MODELS.each do |r, (charges, claims)|
  route = r.tr('_', '-')
  server.mount_proc("/#{route}/charges") do |req, res|
    key = req['Idempotency-Key'].to_s
    ActiveRecord::Base.connection_pool.with_connection do
      if r == 'effect_first'
        charge(charges, key)
        claims.create!(idempotency_key: key)
      else
        ActiveRecord::Base.transaction do
          claims.create!(idempotency_key: key)
          charge(charges, key)
        end
      end
      answer(res, 201, status: 'charged')
    rescue ActiveRecord::RecordNotUnique
      answer(res, 409, error: 'key already used')
    end
  end
  server.mount_proc("/#{route}/effects") do |req, res|
    ActiveRecord::Base.connection_pool.with_connection do
      res.body = charges.where(idempotency_key: req.query['key'].to_s).count.to_s
    end
  end
  server.mount_proc("/#{route}/doubled") do |_req, res|
    ActiveRecord::Base.connection_pool.with_connection do
      res.body = charges.group(:idempotency_key).having('count(*) > 1').count.size.to_s
    end
  end
end

trap('TERM') { server.shutdown }
$stdout.puts server.config[:Port]
$stdout.flush
server.start
